#include "remote/remote_gguf.h"

#include "text_file.h"
#include "units.h"

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unistd.h>

namespace headroom::remote {

namespace {

// The first range asked for: small headers (most models below 100k tokens) come in one
// request; larger ones double from here, so a 10 MiB header takes five. Not a knob.
constexpr std::uint64_t kFirstRange = 512 * 1024;
// A model listing of the hub is a few KiB per file; a repository of thousands of files stays
// far below this. Not a knob.
constexpr std::uint64_t kMaxListingBytes = 16ull << 20;
constexpr long kMaxRedirects = 10;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// --- HTTP (libcurl easy interface) -------------------------------------------------------------

struct HttpRequest {
    std::string url;
    bool head = false;
    std::uint64_t range_begin = 0, range_end = 0; // [begin, end); end 0: the whole body
    std::uint64_t max_body = 0;                   // bytes kept; the transfer stops there
    std::string bearer;
    bool accept_json = false;
};

struct HttpResponse {
    long status = 0;
    std::string body;
    bool capped = false; // the body reached max_body and the transfer was stopped
    std::string effective_url;
    std::map<std::string, std::string> headers; // of the final response, lower-case names

    std::string header(const std::string& name) const {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    }
};

struct BodySink {
    HttpResponse* response;
    std::uint64_t max;
};

std::size_t onBody(char* data, std::size_t size, std::size_t n, void* user) {
    auto* sink = static_cast<BodySink*>(user);
    const std::size_t len = size * n;
    const std::uint64_t room = sink->max - sink->response->body.size();
    if (len > room) {
        // A server that ignores Range sends the whole file: keep what was asked for and stop
        // the transfer (returning short makes libcurl abort with CURLE_WRITE_ERROR).
        sink->response->body.append(data, static_cast<std::size_t>(room));
        sink->response->capped = true;
        return 0;
    }
    sink->response->body.append(data, len);
    return len;
}

std::size_t onHeader(char* data, std::size_t size, std::size_t n, void* user) {
    auto* r = static_cast<HttpResponse*>(user);
    const std::string_view line(data, size * n);
    // Each response of a redirect chain starts with its status line: keep the last one's.
    if (line.starts_with("HTTP/")) {
        r->headers.clear();
        return size * n;
    }
    const auto colon = line.find(':');
    if (colon != std::string_view::npos)
        r->headers[lower(std::string(trim(line.substr(0, colon))))] =
            std::string(trim(line.substr(colon + 1)));
    return size * n;
}

void initCurlOnce() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Transport failures (no answer, refused, timed out) are IoError naming the URL; an HTTP error
// status is not a failure here, the caller words it.
Result<HttpResponse> perform(const HttpRequest& q, const RemoteOptions& o) {
    initCurlOnce();
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) return makeError(ErrorCode::IoError, "cannot start libcurl to fetch " + q.url);
    CURL* c = curl.get();
    HttpResponse r;
    BodySink sink{&r, q.max_body};
    char errbuf[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(c, CURLOPT_URL, q.url.c_str());
    // No signals: libcurl runs on the GUI's worker thread too.
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L); // the hub redirects resolve/ to its CDN
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, kMaxRedirects);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, o.connect_timeout_s);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, o.stall_timeout_s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, o.total_timeout_s);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "headroom/" HEADROOM_VERSION);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    if (q.head) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    std::string range;
    if (q.range_end > q.range_begin) {
        range = std::to_string(q.range_begin) + "-" + std::to_string(q.range_end - 1);
        curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    }
    // libcurl drops custom Authorization headers when a redirect leaves the host (since
    // 7.58), so the token never reaches the CDN the hub redirects to.
    curl_slist* headers = nullptr;
    if (q.accept_json) headers = curl_slist_append(headers, "Accept: application/json");
    if (!q.bearer.empty())
        headers = curl_slist_append(headers, ("Authorization: Bearer " + q.bearer).c_str());
    std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(headers, curl_slist_free_all);
    if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

    const CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && r.capped)) {
        std::string why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
        while (!why.empty() && why.back() == '\n')
            why.pop_back();
        if (rc == CURLE_OPERATION_TIMEDOUT)
            why += " (no answer within " + std::to_string(o.connect_timeout_s) + " s to connect, " +
                   std::to_string(o.stall_timeout_s) + " s without data)";
        return makeError(ErrorCode::IoError, "cannot fetch " + q.url + ": " + why,
                         "offline, or the server is down; a header fetched before is reused "
                         "from the cache");
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    char* eff = nullptr;
    curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &eff);
    r.effective_url = eff ? eff : q.url;
    return r;
}

Error httpStatusError(const std::string& url, long status, const std::string& what) {
    std::string msg = url + ": the server answered HTTP " + std::to_string(status) + " to " + what;
    if (status == 401 || status == 403) msg += " (a gated or private repository needs HF_TOKEN)";
    if (status == 404) msg += " (not found)";
    // NotFound only for 404, so a split model can tell a missing part from a failure; callers
    // turn it into IoError (exit 3) before it reaches the user.
    return makeError(status == 404 ? ErrorCode::NotFound : ErrorCode::IoError, msg);
}

// --- the header cache ------------------------------------------------------------------------

struct CacheEntry {
    std::string url, etag;
    std::uint64_t size = 0;
    std::string data;
};

// FNV-1a: the file name only spreads URLs over names; the entry stores its URL and is checked.
std::string cacheName(const std::string& url) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : url) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return std::string(buf) + ".gguf-header";
}

// One file per URL: a JSON line (url, etag, size, bytes) then the bytes, so an entry is
// replaced by one rename and never seen half-written.
std::optional<CacheEntry> loadCache(const std::string& dir, const std::string& url) {
    if (dir.empty()) return std::nullopt;
    std::ifstream in(dir + "/" + cacheName(url), std::ios::binary);
    if (!in) return std::nullopt;
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("url", "") != url) return std::nullopt;
    CacheEntry e;
    e.url = url;
    e.etag = j.value("etag", "");
    e.size = j.value("size", std::uint64_t{0});
    const auto bytes = j.value("bytes", std::uint64_t{0});
    e.data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (e.data.size() != bytes) return std::nullopt;
    return e;
}

void storeCache(const std::string& dir, const CacheEntry& e) {
    if (dir.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string final_path = dir + "/" + cacheName(e.url);
    const std::string tmp = final_path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return; // the cache only saves time; a read-only home is not an error
        const nlohmann::json j = {
            {"url", e.url}, {"etag", e.etag}, {"size", e.size}, {"bytes", e.data.size()}};
        out << j.dump() << "\n";
        out.write(e.data.data(), static_cast<std::streamsize>(e.data.size()));
        if (!out.flush()) {
            std::filesystem::remove(tmp, ec);
            return;
        }
    }
    std::filesystem::rename(tmp, final_path, ec);
    if (ec) std::filesystem::remove(tmp, ec);
}

// --- the range reader ------------------------------------------------------------------------

class RangeSource final : public GgufByteSource {
public:
    RangeSource(std::string url, std::string bearer, const RemoteOptions& o)
        : url_(std::move(url)), fetch_url_(url_), bearer_(std::move(bearer)), o_(o) {}

    std::uint64_t size() const override { return size_; }
    bool fromCache() const { return from_cache_; }
    std::uint64_t fetchedBytes() const { return fetched_; }
    int requests() const { return requests_; }

    // Learns the size (and ETag) with a HEAD, or takes the cached header when it is still the
    // same file; falls back to the cache when the server cannot be reached.
    std::optional<Error> open() {
        const auto cached = loadCache(o_.cache_dir, url_);
        HttpRequest q;
        q.url = url_;
        q.head = true;
        q.bearer = bearer_;
        ++requests_;
        auto head = perform(q, o_);
        if (!head) {
            if (cached) {
                useCache(*cached);
                note("cannot reach " + url_ + "; using the header cached before");
                return std::nullopt;
            }
            return head.error();
        }
        const long st = head->status;
        // Some servers (signed object-store URLs) answer only GET: learn the size from the
        // first range instead.
        const bool head_refused = st == 405 || st == 501 || st == 403;
        if (st >= 400 && !head_refused) return httpStatusError(url_, st, "HEAD");
        if (!head_refused) {
            fetch_url_ = head->effective_url;
            etag_ = head->header("etag");
            const std::string len = head->header("content-length");
            if (!len.empty()) size_ = std::strtoull(len.c_str(), nullptr, 10);
            known_size_ = !len.empty();
            if (cached && known_size_ && cached->size == size_ && cached->etag == etag_) {
                useCache(*cached);
                note("using the cached header of " + url_);
                return std::nullopt;
            }
        }
        if (!known_size_) {
            // The first range tells the size (Content-Range "bytes 0-N/TOTAL", or the
            // Content-Length of a server that ignores Range).
            size_ = o_.max_header_bytes;
            if (!fetch(std::min<std::uint64_t>(kFirstRange, o_.max_header_bytes))) return err_;
        }
        return std::nullopt;
    }

    bool readAt(std::uint64_t offset, char* dst, std::size_t n, std::string& error) override {
        if (!ensure(offset + n)) {
            error = err_ ? err_->message : "cannot fetch " + url_;
            return false;
        }
        std::memcpy(dst, data_.data() + offset, n);
        return true;
    }

    CacheEntry entry() const { return {url_, etag_, size_, data_}; }
    const std::optional<Error>& error() const { return err_; }

private:
    void note(const std::string& line) const {
        if (o_.progress) o_.progress(line);
    }

    void useCache(const CacheEntry& e) {
        data_ = e.data;
        size_ = e.size;
        etag_ = e.etag;
        known_size_ = true;
        from_cache_ = true;
    }

    bool ensure(std::uint64_t end) {
        if (end <= data_.size()) return true;
        if (end > o_.max_header_bytes) {
            err_ = makeError(ErrorCode::IoError,
                             url_ + ": the GGUF header needs more than " +
                                 formatBytes(o_.max_header_bytes) +
                                 ", the most Headroom reads from a remote file (real headers "
                                 "are a few MiB: is it a GGUF file?)");
            return false;
        }
        std::uint64_t want = std::max<std::uint64_t>(
            {end, 2 * static_cast<std::uint64_t>(data_.size()), kFirstRange});
        want = std::min({want, size_, o_.max_header_bytes});
        if (!fetch(want)) return false;
        if (end <= data_.size()) return true;
        setShort(end);
        return false;
    }

    void setShort(std::uint64_t end) {
        if (!err_)
            err_ = makeError(ErrorCode::IoError,
                             url_ + ": the server sent " + std::to_string(data_.size()) +
                                 " bytes where the header needs " + std::to_string(end));
    }

    // Makes data_ hold bytes [0, end).
    bool fetch(std::uint64_t end) {
        const std::uint64_t have = data_.size();
        HttpRequest q;
        q.url = fetch_url_;
        q.range_begin = have;
        q.range_end = end;
        // A server that ignores Range sends from byte 0: keep up to `end` either way.
        q.max_body = end;
        q.bearer = bearer_;
        note("fetching the header of " + url_ + ": bytes " + std::to_string(have) + "-" +
             std::to_string(end) + (known_size_ ? " of " + formatBytes(size_) : std::string()));
        ++requests_;
        auto r = perform(q, o_);
        if (!r) {
            err_ = r.error();
            return false;
        }
        fetched_ += r->body.size();
        if (r->status == 206) {
            // "bytes FIRST-LAST/TOTAL" (RFC 9110 14.4).
            const std::string cr = r->header("content-range");
            unsigned long long first = 0, last = 0, total = 0;
            const int got = std::sscanf(cr.c_str(), "bytes %llu-%llu/%llu", &first, &last, &total);
            if (got < 2 || first != have) {
                err_ =
                    makeError(ErrorCode::IoError, url_ + ": the server answered range " +
                                                      std::to_string(have) + "- with '" + cr + "'");
                return false;
            }
            if (got == 3 && !known_size_) {
                size_ = total;
                known_size_ = true;
            }
            data_.append(r->body, 0, static_cast<std::size_t>(end - have));
        } else if (r->status == 200) {
            // Range ignored: the body is the file from its first byte, cut at `end`.
            if (!known_size_) {
                const std::string len = r->header("content-length");
                size_ = len.empty() ? r->body.size() + (r->capped ? 1 : 0)
                                    : std::strtoull(len.c_str(), nullptr, 10);
                if (len.empty() && r->capped) size_ = o_.max_header_bytes;
                known_size_ = true;
            }
            if (!ranges_warned_) {
                note(url_ + ": the server ignores range requests; reading from the start, " +
                     formatBytes(o_.max_header_bytes) + " at most");
                ranges_warned_ = true;
            }
            if (r->body.size() > have) data_ = std::move(r->body);
        } else {
            err_ = httpStatusError(url_, r->status, "a range request");
            if (err_->code == ErrorCode::NotFound) err_->code = ErrorCode::IoError;
            return false;
        }
        if (data_.size() > size_) data_.resize(static_cast<std::size_t>(size_));
        return true;
    }

    std::string url_;       // as given (labels, cache key)
    std::string fetch_url_; // after redirects
    std::string bearer_;
    const RemoteOptions& o_;
    std::string data_; // bytes [0, data_.size()) of the file
    std::uint64_t size_ = 0;
    bool known_size_ = false;
    std::string etag_;
    bool from_cache_ = false;
    bool ranges_warned_ = false;
    std::uint64_t fetched_ = 0;
    int requests_ = 0;
    std::optional<Error> err_;
};

Result<GgufFile> fetchHeader(const std::string& url, const std::string& bearer,
                             const RemoteOptions& o) {
    RangeSource src(url, bearer, o);
    if (auto e = src.open()) return *e;
    auto f = readGguf(src, url);
    if (!f) {
        // The parser words an I/O failure as "cannot read"; the source knows the real cause.
        if (src.error()) return *src.error();
        return f.error();
    }
    if (!src.fromCache()) {
        storeCache(o.cache_dir, src.entry());
        if (o.progress)
            o.progress("read the header of " + url + ": " + formatBytes(src.fetchedBytes()) +
                       " in " + std::to_string(src.requests()) + " requests");
    }
    return f;
}

// The part of a URL before its query or fragment, where the file name is.
std::pair<std::string, std::string> splitQuery(const std::string& url) {
    const auto q = url.find_first_of("?#");
    if (q == std::string::npos) return {url, {}};
    return {url.substr(0, q), url.substr(q)};
}

Result<GgufModel> openUrlModel(const std::string& url, const std::string& bearer,
                               const RemoteOptions& o) {
    GgufModel m;
    m.path = url;
    const auto [base, query] = splitQuery(url);
    const auto split = parseGgufSplitName(base);
    auto asIoError = [](Error e) {
        if (e.code == ErrorCode::NotFound) e.code = ErrorCode::IoError;
        return e;
    };
    if (!split) {
        auto f = fetchHeader(url, bearer, o);
        if (!f) return asIoError(f.error());
        m.parts.push_back(std::move(*f));
    } else {
        // As for local files (openGgufModel): llama.cpp loads every split by its name pattern
        // (src/llama-model-loader.cpp) and the shape needs every part's tensors.
        for (int i = 1; i <= split->count; ++i) {
            const std::string part = ggufSplitPath(split->stem, i, split->count) + query;
            if (o.progress && split->count > 1)
                o.progress("part " + std::to_string(i) + " of " + std::to_string(split->count));
            auto f = fetchHeader(part, bearer, o);
            if (!f) {
                if (f.error().code == ErrorCode::NotFound && i != split->index) {
                    m.missing_parts.push_back(part);
                    continue;
                }
                return asIoError(f.error());
            }
            // llama.cpp's split.no is 0-based (LLM_KV_SPLIT_NO, gguf-split.cpp).
            if (const auto no = f->getUInt("split.no");
                no && *no != static_cast<std::uint64_t>(i - 1))
                return makeError(ErrorCode::ParseError,
                                 "'" + part + "' says it is split " + std::to_string(*no + 1) +
                                     " but is named as part " + std::to_string(i));
            if (const auto cnt = f->getUInt("split.count");
                cnt && *cnt != static_cast<std::uint64_t>(split->count))
                return makeError(ErrorCode::ParseError, "'" + part + "' says the model has " +
                                                            std::to_string(*cnt) +
                                                            " splits but is named as one of " +
                                                            std::to_string(split->count));
            m.parts.push_back(std::move(*f));
        }
    }
    m.complete = m.missing_parts.empty();
    for (const auto& p : m.parts) {
        m.tensor_bytes = satAdd(m.tensor_bytes, p.tensor_bytes);
        m.file_bytes = satAdd(m.file_bytes, p.file_bytes);
        m.tensor_count += p.tensors.size();
    }
    m.is_projector = m.metadata().isProjector();
    return m;
}

// --- Hugging Face ----------------------------------------------------------------------------

std::string encodePath(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : path) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    return out;
}

bool endsWithGguf(const std::string& name) {
    return name.size() > 5 && lower(name.substr(name.size() - 5)) == ".gguf";
}

std::string baseName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// QUANT as a whole component of the name: bounded by the start, the end, '-', '.', '/' or
// ' ' ("model.Q8_0.gguf", "model-Q4_K_M-00001-of-00002.gguf"); '_' is part of quant names.
bool hasComponent(const std::string& name_lc, const std::string& quant_lc) {
    auto boundary = [](char c) { return c == '-' || c == '.' || c == '/' || c == ' '; };
    for (std::size_t at = name_lc.find(quant_lc); at != std::string::npos;
         at = name_lc.find(quant_lc, at + 1)) {
        const std::size_t end = at + quant_lc.size();
        if ((at == 0 || boundary(name_lc[at - 1])) &&
            (end == name_lc.size() || boundary(name_lc[end])))
            return true;
    }
    return false;
}

// The hub's file listing, huggingface_hub's HfApi.model_info: GET {endpoint}/api/models/{repo}
// returns {"siblings": [{"rfilename": "..."}, ...]} (verified against huggingface_hub's
// hf_api.py, which also sends the token as "authorization: Bearer"). Cached like headers so an
// hf: plan made before still works offline.
Result<std::vector<std::string>> listHfFiles(const HfRef& ref, const RemoteOptions& o) {
    const std::string api = o.hf_endpoint + "/api/models/" + ref.owner + "/" + ref.repo;
    const std::string label = "hf:" + ref.owner + "/" + ref.repo;
    HttpRequest q;
    q.url = api;
    q.max_body = kMaxListingBytes;
    q.bearer = o.hf_token;
    q.accept_json = true;
    if (o.progress) o.progress("listing the files of " + label + " at " + o.hf_endpoint);
    std::string body;
    auto r = perform(q, o);
    if (!r) {
        const auto cached = loadCache(o.cache_dir, api);
        if (!cached) return r.error();
        if (o.progress) o.progress("cannot reach " + api + "; using the listing cached before");
        body = cached->data;
    } else {
        if (r->status == 404)
            return makeError(ErrorCode::IoError, label + ": no such model repository at " +
                                                     o.hf_endpoint + " (" + api +
                                                     " answered HTTP 404)");
        if (r->status >= 400) {
            Error e = httpStatusError(api, r->status, "the file listing");
            e.code = ErrorCode::IoError;
            return e;
        }
        if (r->capped)
            return makeError(ErrorCode::IoError,
                             api + ": the listing is larger than " + formatBytes(kMaxListingBytes));
        body = std::move(r->body);
        storeCache(o.cache_dir, {api, "", body.size(), body});
    }
    const auto j = nlohmann::json::parse(body, nullptr, false);
    std::vector<std::string> files;
    if (j.is_object() && j.contains("siblings") && j["siblings"].is_array()) {
        for (const auto& s : j["siblings"])
            if (s.is_object() && s.contains("rfilename") && s["rfilename"].is_string())
                files.push_back(s["rfilename"].get<std::string>());
    } else {
        return makeError(ErrorCode::IoError,
                         api + ": the answer is not a model listing (no siblings[].rfilename)");
    }
    return files;
}

} // namespace

RemoteOptions remoteOptionsFromEnvironment() {
    RemoteOptions o;
    if (const char* e = std::getenv("HF_ENDPOINT"); e && *e) o.hf_endpoint = e;
    while (!o.hf_endpoint.empty() && o.hf_endpoint.back() == '/')
        o.hf_endpoint.pop_back();
    if (const char* t = std::getenv("HF_TOKEN"); t && *t) o.hf_token = t;
    // XDG Base Directory: $XDG_CACHE_HOME, else ~/.cache.
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        o.cache_dir = std::string(x) + "/headroom/headers";
    else if (const char* h = std::getenv("HOME"); h && *h)
        o.cache_dir = std::string(h) + "/.cache/headroom/headers";
    return o;
}

bool isRemoteModelRef(std::string_view ref) {
    return ref.starts_with("https://") || ref.starts_with("http://") || ref.starts_with("hf:");
}

Result<HfRef> parseHfRef(std::string_view ref) {
    auto bad = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "'" + std::string(ref) + "' is not a Hugging Face model: " + why,
                         "expected hf:OWNER/REPO or hf:OWNER/REPO:QUANT, e.g. "
                         "hf:Qwen/Qwen3-8B-GGUF:Q8_0");
    };
    if (!ref.starts_with("hf:")) return bad("it does not start with hf:");
    std::string_view rest = ref.substr(3);
    HfRef h;
    if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
        h.quant = std::string(rest.substr(colon + 1));
        rest = rest.substr(0, colon);
        if (h.quant.empty()) return bad("the quant after ':' is empty");
    }
    const auto slash = rest.find('/');
    if (slash == std::string_view::npos || rest.find('/', slash + 1) != std::string_view::npos)
        return bad("the repository must be OWNER/REPO");
    h.owner = std::string(rest.substr(0, slash));
    h.repo = std::string(rest.substr(slash + 1));
    // Hub repository names: letters, digits, '-', '_', '.' (huggingface_hub validate_repo_id).
    auto valid = [](const std::string& s) {
        return !s.empty() && s != "." && s != ".." &&
               std::all_of(s.begin(), s.end(), [](unsigned char c) {
                   return std::isalnum(c) || c == '-' || c == '_' || c == '.';
               });
    };
    if (!valid(h.owner) || !valid(h.repo))
        return bad("OWNER and REPO hold letters, digits, '-', '_' and '.' only");
    return h;
}

Result<std::vector<std::string>> pickHfFiles(const std::vector<std::string>& files,
                                             const std::string& quant, const std::string& label) {
    // Candidates: one per single file or split set (keyed by its stem), projectors left out
    // (llama.cpp's -hf picks the projector separately).
    struct Candidate {
        std::string name; // the file, or the split stem + "-*-of-N.gguf"
        std::vector<std::pair<int, std::string>> parts;
    };
    std::vector<Candidate> cands;
    std::map<std::string, std::size_t> by_key;
    for (const auto& f : files) {
        if (!endsWithGguf(f) || lower(baseName(f)).starts_with("mmproj")) continue;
        const auto split = parseGgufSplitName(f);
        const std::string key =
            split ? split->stem + "-*-of-" + std::to_string(split->count) + ".gguf" : f;
        auto [it, fresh] = by_key.emplace(key, cands.size());
        if (fresh) cands.push_back({key, {}});
        cands[it->second].parts.push_back({split ? split->index : 1, f});
    }
    std::sort(cands.begin(), cands.end(),
              [](const Candidate& a, const Candidate& b) { return a.name < b.name; });
    auto listing = [&](const std::vector<const Candidate*>& cs) {
        std::string s;
        for (const auto* c : cs)
            s += (s.empty() ? "" : ", ") + c->name;
        return s;
    };
    std::vector<const Candidate*> all;
    all.reserve(cands.size());
    for (const auto& c : cands)
        all.push_back(&c);
    if (cands.empty())
        return makeError(ErrorCode::InvalidArgument, label + " holds no GGUF model file");
    auto result = [](const Candidate& c) {
        auto parts = c.parts;
        std::sort(parts.begin(), parts.end());
        std::vector<std::string> out;
        out.reserve(parts.size());
        for (auto& p : parts)
            out.push_back(p.second);
        return out;
    };
    auto matching = [&](const std::string& q, bool component) {
        const std::string ql = lower(q);
        std::vector<const Candidate*> out;
        for (const auto& c : cands) {
            const std::string nl = lower(c.name);
            if (component ? hasComponent(nl, ql) : nl.find(ql) != std::string::npos)
                out.push_back(&c);
        }
        return out;
    };
    if (quant.empty()) {
        // llama.cpp common/arg.cpp common_get_hf_file: the "latest" tag checks Q4_K_M first,
        // then Q4, then the first GGUF of the repository.
        for (const char* q : {"Q4_K_M", "Q4"}) {
            auto m = matching(q, false);
            if (!m.empty()) return result(*m.front());
        }
        return result(cands.front());
    }
    auto exact = matching(quant, true);
    auto m = exact.empty() ? matching(quant, false) : exact;
    if (m.size() == 1) return result(*m.front());
    if (m.empty())
        return makeError(ErrorCode::InvalidArgument,
                         label + " has no GGUF file matching '" + quant + "'",
                         "files: " + listing(all));
    return makeError(ErrorCode::InvalidArgument,
                     label + ": '" + quant + "' matches several files; name one of them",
                     "candidates: " + listing(m));
}

Result<std::string> fetchDocument(const std::string& url, std::uint64_t max_bytes,
                                  const RemoteOptions& o) {
    if (!url.starts_with("https://") && !url.starts_with("http://"))
        return makeError(ErrorCode::InvalidArgument,
                         "'" + url + "' is not an http:// or https:// address");
    HttpRequest q;
    q.url = url;
    // One byte past the cap tells "exactly the cap" from "larger".
    q.max_body = max_bytes + 1;
    auto r = perform(q, o);
    if (!r) return r.error();
    if (r->status < 200 || r->status >= 300) {
        Error e = httpStatusError(url, r->status, "GET");
        e.code = ErrorCode::IoError;
        return e;
    }
    if (r->capped || r->body.size() > max_bytes)
        return makeError(ErrorCode::IoError, url + " is larger than " +
                                                 std::to_string(max_bytes >> 20) +
                                                 " MiB, the most this program reads of it");
    return std::move(r->body);
}

Result<std::string> readDocument(const std::string& path_or_url, std::uint64_t max_bytes,
                                 const RemoteOptions& o) {
    if (path_or_url.starts_with("https://") || path_or_url.starts_with("http://"))
        return fetchDocument(path_or_url, max_bytes, o);
    // file:///abs/path is that path; any other scheme ("ftp://", "s3://") is not a file name a
    // user meant, so it is refused by name rather than reported as a missing file.
    if (path_or_url.starts_with("file://"))
        return readRegularTextFile(path_or_url.substr(7), static_cast<std::size_t>(max_bytes));
    if (const auto sep = path_or_url.find("://");
        sep != std::string::npos && sep > 0 && path_or_url.find('/') > sep) {
        const std::string scheme = path_or_url.substr(0, sep);
        if (std::all_of(scheme.begin(), scheme.end(), [](unsigned char c) {
                return std::isalnum(c) || c == '+' || c == '-' || c == '.';
            }))
            return makeError(ErrorCode::InvalidArgument,
                             "'" + path_or_url + "': " + scheme + ":// cannot be read",
                             "give an http:// or https:// URL, or a file path");
    }
    return readRegularTextFile(path_or_url, static_cast<std::size_t>(max_bytes));
}

Result<GgufModel> openRemoteGgufModel(const std::string& ref, const RemoteOptions& o) {
    if (ref.starts_with("hf:")) {
        auto h = parseHfRef(ref);
        if (!h) return h.error();
        auto files = listHfFiles(*h, o);
        if (!files) return files.error();
        auto picked = pickHfFiles(*files, h->quant, "hf:" + h->owner + "/" + h->repo);
        if (!picked) return picked.error();
        // Files are served at {endpoint}/{repo_id}/resolve/{revision}/{filename}
        // (huggingface_hub constants.py HUGGINGFACE_CO_URL_TEMPLATE; llama.cpp's -hf downloads
        // the same path).
        const std::string url = o.hf_endpoint + "/" + h->owner + "/" + h->repo + "/resolve/main/" +
                                encodePath(picked->front());
        if (o.progress) o.progress(ref + " is " + picked->front());
        return openUrlModel(url, o.hf_token, o);
    }
    if (!ref.starts_with("https://") && !ref.starts_with("http://"))
        return makeError(ErrorCode::InvalidArgument,
                         "'" + ref + "' is not a remote model (https://…, http://… or hf:…)");
    return openUrlModel(ref, {}, o);
}

} // namespace headroom::remote
