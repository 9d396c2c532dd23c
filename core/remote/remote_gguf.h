// Remote models: the GGUF header of an http(s):// address or a Hugging Face repository
// (hf:OWNER/REPO[:QUANT]), read with HTTP range requests (libcurl) and never the tensor data.
//
// A header is a few MiB at the front of a file of many GiB; the range grows (512 KiB, then
// doubling) until the parser has what it needs, capped (64 MiB by default, a clear error past
// it). Split models ("-00001-of-0000N.gguf") fetch each part's header, since the shape needs
// every tensor. Fetched headers are cached under $XDG_CACHE_HOME/headroom/headers/ (keyed by
// the URL and validated by ETag and size), written atomically; the next plan costs one HEAD,
// and an unreachable server falls back to the cache with a note. No Qt: the CLI and the GUI
// (off its thread) share it.
//
//   auto opts = remoteOptionsFromEnvironment();          // HF_ENDPOINT, HF_TOKEN, cache dir
//   opts.progress = [](const std::string& l) { std::cerr << l << "\n"; };
//   auto m = openRemoteGgufModel("hf:owner/repo:Q8_0", opts);   // a GgufModel, like a file's
#pragma once

#include "gguf/gguf_reader.h"
#include "result.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::remote {

struct RemoteOptions {
    // Hugging Face hub root for hf: references (huggingface_hub's HF_ENDPOINT), no trailing '/'.
    std::string hf_endpoint = "https://huggingface.co";
    std::string hf_token;  // sent as "Authorization: Bearer" to the hub only; "" = none
    std::string cache_dir; // where fetched headers are kept; "" = no cache
    // Bytes read per file at most: the largest real headers (260k-token vocabularies) are
    // ~10 MiB, so 64 MiB stops a hostile or range-ignoring server without refusing real models.
    std::uint64_t max_header_bytes = 64ull << 20;
    // Offline must fail in well under 10 s: 4 s to connect, and a transfer that moves less than
    // a byte a second for 4 s is given up. A whole request may take at most total_timeout_s.
    long connect_timeout_s = 4;
    long stall_timeout_s = 4;
    long total_timeout_s = 300;
    // One line per step ("fetching …"), for stderr or a status bar; may be empty.
    std::function<void(const std::string&)> progress;
};

// The defaults, with HF_ENDPOINT, HF_TOKEN and the cache directory ($XDG_CACHE_HOME or
// ~/.cache, + /headroom/headers) taken from the environment.
RemoteOptions remoteOptionsFromEnvironment();

// True for "http://…", "https://…" and "hf:…": what openRemoteGgufModel takes.
bool isRemoteModelRef(std::string_view ref);

// Opens the model at `ref` as openGgufModel opens a local file: every part of a split model,
// parts that answer 404 listed as missing. GgufModel::path and each part's path are URLs.
// Errors: InvalidArgument for a malformed reference or a QUANT that matches no file or several
// (the message lists the candidates); IoError naming the URL for anything the network or the
// server refused (offline, timeout, HTTP error, header past the cap); the parser's errors for
// a malformed header.
Result<GgufModel> openRemoteGgufModel(const std::string& ref, const RemoteOptions& options);

// The whole body of a small document at an http(s):// URL (a catalog update), at most
// `max_bytes`: a larger body is an error, never a truncated document. IoError naming the URL for
// a transport failure, an HTTP error status or a body past the cap.
Result<std::string> fetchDocument(const std::string& url, std::uint64_t max_bytes,
                                  const RemoteOptions& options);

// A document the user names by path or by http(s):// URL: readRegularTextFile() for a path
// (regular files only), fetchDocument() for a URL; `max_bytes` caps both.
Result<std::string> readDocument(const std::string& path_or_url, std::uint64_t max_bytes,
                                 const RemoteOptions& options);

// --- hf: resolution, exposed for tests -------------------------------------------------------
struct HfRef {
    std::string owner, repo, quant; // quant "" when not given
};
// "hf:owner/repo[:QUANT]"; InvalidArgument naming the expected form otherwise.
Result<HfRef> parseHfRef(std::string_view ref);
// Which files of a repository listing (rfilename values) make the model: every part of one
// split set, or one file, in part order. `quant` "" picks as llama.cpp's -hf does (Q4_K_M, then
// any Q4, then the first GGUF); otherwise the GGUF whose name holds QUANT as a name component
// (".Q8_0.", "-Q8_0-"), else as a substring, case-insensitively. Projector files (mmproj*) are
// never picked. InvalidArgument listing the candidates when none or several match.
Result<std::vector<std::string>> pickHfFiles(const std::vector<std::string>& files,
                                             const std::string& quant, const std::string& label);

} // namespace headroom::remote
