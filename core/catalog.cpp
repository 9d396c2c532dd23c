#include "catalog.h"

#include "arch/layer_rules.h"

#include "resources.h"
#include "text_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace headroom {

using nlohmann::json;

namespace {

inline constexpr const char* kSchema = "headroom.catalog/1";
inline constexpr unsigned kSchemaVersion = 1;

// N of "headroom.catalog/N" (digits only, no leading zero); nullopt for any other string.
std::optional<unsigned long> schemaVersion(const std::string& schema) {
    const std::string prefix = "headroom.catalog/";
    if (!schema.starts_with(prefix)) return std::nullopt;
    const std::string n = schema.substr(prefix.size());
    if (n.empty() || n.size() > 9 || n[0] == '0' ||
        !std::all_of(n.begin(), n.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::nullopt;
    return std::stoul(n);
}
// Limits past which a number is malformed input, not a model. Not knobs: each is orders of
// magnitude above any released model (largest today: ~130 layers, 256K vocab, 16K embd, 10M ctx).
inline constexpr std::uint64_t kMaxLayers = 1000;
inline constexpr std::uint64_t kMaxDim = 1u << 20;   // embd, ff, heads, head dims, ranks
inline constexpr std::uint64_t kMaxVocab = 1u << 24; // 16.7M tokens
inline constexpr std::uint64_t kMaxCtx = 1ull << 30; // 1G tokens
inline constexpr std::uint64_t kMaxExperts = 1u << 16;
inline constexpr std::uint64_t kMaxParams = 100ull << 40; // 100 T parameters

// A bad field inside one entry; caught per entry so it never leaves this file.
struct FieldError {
    std::string field;
    std::string reason;
};

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Reads the keys of one JSON object, remembering which were consumed so the rest can be
// reported as unknown.
class ObjectReader {
public:
    ObjectReader(const json& obj, std::string prefix) : obj_(obj), prefix_(std::move(prefix)) {
        if (!obj_.is_object()) fail("", "must be an object");
    }

    std::string path(const std::string& key) const {
        return prefix_.empty() ? key : (key.empty() ? prefix_ : prefix_ + "." + key);
    }
    [[noreturn]] void fail(const std::string& key, const std::string& reason) const {
        throw FieldError{path(key), reason};
    }

    const json* get(const std::string& key) {
        seen_.insert(key);
        auto it = obj_.find(key);
        return it == obj_.end() ? nullptr : &*it;
    }
    const json& need(const std::string& key) {
        const json* v = get(key);
        if (!v) fail(key, "is missing");
        return *v;
    }

    std::uint64_t uintValue(const std::string& key, const json& v, std::uint64_t lo,
                            std::uint64_t hi) const {
        if (v.is_number_integer() && v.get<std::int64_t>() < 0)
            fail(key, "must not be negative (got " + dumpJson(v, -1) + ")");
        if (!v.is_number_unsigned() && !v.is_number_integer())
            fail(key, "must be a whole number (got " + dumpJson(v, -1) + ")");
        const std::uint64_t x = v.get<std::uint64_t>();
        if (x < lo || x > hi)
            fail(key, "is out of range: " + std::to_string(x) + " (allowed " + std::to_string(lo) +
                          ".." + std::to_string(hi) + ")");
        return x;
    }
    std::uint64_t uint(const std::string& key, std::uint64_t lo, std::uint64_t hi) {
        return uintValue(key, need(key), lo, hi);
    }
    std::uint64_t uintOr(const std::string& key, std::uint64_t def, std::uint64_t lo,
                         std::uint64_t hi) {
        const json* v = get(key);
        return v ? uintValue(key, *v, lo, hi) : def;
    }
    std::optional<std::uint64_t> uintOpt(const std::string& key, std::uint64_t lo,
                                         std::uint64_t hi) {
        const json* v = get(key);
        if (!v) return std::nullopt;
        return uintValue(key, *v, lo, hi);
    }
    std::string str(const std::string& key) {
        const json& v = need(key);
        if (!v.is_string()) fail(key, "must be a string (got " + dumpJson(v, -1) + ")");
        std::string s = v.get<std::string>();
        if (s.empty()) fail(key, "must not be empty");
        return s;
    }
    std::string strOr(const std::string& key, std::string def) {
        return get(key) ? str(key) : std::move(def);
    }
    bool boolOr(const std::string& key, bool def) {
        const json* v = get(key);
        if (!v) return def;
        if (!v->is_boolean()) fail(key, "must be true or false (got " + dumpJson(*v, -1) + ")");
        return v->get<bool>();
    }
    // A scalar applied to every layer, or one value per layer.
    std::vector<std::uint32_t> perLayer(const std::string& key, std::uint32_t n_layer,
                                        std::uint64_t lo, std::uint64_t hi, bool required,
                                        std::uint32_t def = 0) {
        const json* v = required ? &need(key) : get(key);
        if (!v) return std::vector<std::uint32_t>(n_layer, def);
        if (v->is_array()) {
            if (v->size() != n_layer)
                fail(key, "has " + std::to_string(v->size()) + " values but n_layer is " +
                              std::to_string(n_layer));
            std::vector<std::uint32_t> out;
            for (std::size_t i = 0; i < v->size(); ++i)
                out.push_back(static_cast<std::uint32_t>(
                    uintValue(key + "[" + std::to_string(i) + "]", (*v)[i], lo, hi)));
            return out;
        }
        return std::vector<std::uint32_t>(n_layer,
                                          static_cast<std::uint32_t>(uintValue(key, *v, lo, hi)));
    }

    void rejectUnknown() const {
        for (auto it = obj_.begin(); it != obj_.end(); ++it)
            if (!seen_.count(it.key())) fail(it.key(), "is not a known field");
    }

private:
    const json& obj_;
    std::string prefix_;
    std::set<std::string> seen_;
};

LayerPattern readPattern(ObjectReader& r, std::uint32_t n_trunk) {
    LayerPattern p;
    const json* all = r.get("all");
    const json* period = r.get("period");
    const json* full_at = r.get("full_at");
    const json* layers = r.get("layers");
    const int forms = (all ? 1 : 0) + (period ? 1 : 0) + (layers ? 1 : 0);
    if (forms != 1) r.fail("", "needs exactly one of \"all\", \"period\" or \"layers\"");
    p.any = true;
    if (all) {
        if (!all->is_boolean() || !all->get<bool>()) r.fail("all", "must be true when given");
        p.all = true;
    } else if (period) {
        p.period = static_cast<std::uint32_t>(r.uintValue("period", *period, 1, kMaxLayers));
        if (full_at) {
            if (!full_at->is_string() || (*full_at != "end" && *full_at != "start"))
                r.fail("full_at",
                       "must be \"end\" or \"start\" (got " + dumpJson(*full_at, -1) + ")");
            p.full_at_start = *full_at == "start";
        }
    } else {
        if (full_at) r.fail("full_at", "only goes with \"period\"");
        if (!layers->is_array() || layers->empty())
            r.fail("layers", "must be a non-empty array of layer indices");
        std::uint64_t prev = 0;
        for (std::size_t i = 0; i < layers->size(); ++i) {
            const auto il = r.uintValue("layers[" + std::to_string(i) + "]", (*layers)[i], 0,
                                        n_trunk == 0 ? 0 : n_trunk - 1);
            if (i > 0 && il <= prev) r.fail("layers", "must be strictly increasing");
            prev = il;
            p.layers.push_back(static_cast<std::uint32_t>(il));
        }
    }
    r.rejectUnknown();
    return p;
}

Bytes readBytes(ObjectReader& r, const std::string& key, bool required) {
    if (!required && !r.get(key)) return 0;
    return r.uint(key, required ? 1 : 0, kMaxPlausibleBytes);
}

CatalogEntry parseEntry(const json& j, std::size_t index, std::string& id_out) {
    ObjectReader r(j, "");
    CatalogEntry e;
    e.id = r.str("id");
    for (char c : e.id)
        if (!(std::islower(static_cast<unsigned char>(c)) ||
              std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'))
            r.fail("id", "may only hold a-z, 0-9, '.', '-' and '_' (got \"" + e.id + "\")");
    id_out = e.id;
    (void)index;
    e.name = r.str("name");
    e.architecture = r.str("architecture");
    {
        const json& s = r.need("sources");
        if (!s.is_array() || s.empty()) r.fail("sources", "must be a non-empty array of URLs");
        for (const auto& u : s) {
            if (!u.is_string() || u.get<std::string>().rfind("http", 0) != 0)
                r.fail("sources", "must hold URLs (got " + dumpJson(u, -1) + ")");
            e.sources.push_back(u.get<std::string>());
        }
    }
    e.n_ctx_train = r.uint("n_ctx_train", 1, kMaxCtx);
    e.n_vocab = static_cast<std::uint32_t>(r.uint("n_vocab", 1, kMaxVocab));
    e.n_embd = static_cast<std::uint32_t>(r.uint("n_embd", 1, kMaxDim));
    e.n_layer = static_cast<std::uint32_t>(r.uint("n_layer", 1, kMaxLayers));
    e.nextn_layers = static_cast<std::uint32_t>(r.uintOr("nextn_layers", 0, 0, kMaxLayers));
    if (e.nextn_layers >= e.n_layer)
        r.fail("nextn_layers", "must be smaller than n_layer (" + std::to_string(e.n_layer) + ")");
    e.n_ff = r.perLayer("n_ff", e.n_layer, 0, kMaxDim, true);
    e.tied_embeddings = r.boolOr("tied_embeddings", false);
    e.ffn_gated = r.boolOr("ffn_gated", true);
    const std::uint32_t n_trunk = e.n_layer - e.nextn_layers;

    {
        ObjectReader a(r.need("attention"), "attention");
        e.n_head = a.perLayer("n_head", e.n_layer, 0, kMaxDim, true);
        e.n_head_kv = a.perLayer("n_head_kv", e.n_layer, 0, kMaxDim, true);
        for (std::uint32_t il = 0; il < e.n_layer; ++il) {
            if (e.n_head_kv[il] > e.n_head[il])
                a.fail("n_head_kv", "exceeds n_head on layer " + std::to_string(il));
        }
        e.head_dim_k = static_cast<std::uint32_t>(a.uint("head_dim_k", 1, kMaxDim));
        e.head_dim_v = static_cast<std::uint32_t>(a.uint("head_dim_v", 1, kMaxDim));
        e.sliding_window = static_cast<std::uint32_t>(a.uintOr("sliding_window", 0, 0, kMaxCtx));
        if (const json* s = a.get("swa")) {
            ObjectReader sr(*s, "attention.swa");
            e.swa = readPattern(sr, n_trunk);
            if (e.sliding_window == 0) a.fail("sliding_window", "is needed with \"swa\"");
        } else if (e.sliding_window > 0) {
            a.fail("swa", "is needed with sliding_window (which layers slide?)");
        }
        e.swa_head_dim_k = static_cast<std::uint32_t>(a.uintOr("swa_head_dim_k", 0, 1, kMaxDim));
        e.swa_head_dim_v = static_cast<std::uint32_t>(a.uintOr("swa_head_dim_v", 0, 1, kMaxDim));
        if (auto v = a.uintOpt("swa_n_head_kv", 1, kMaxDim))
            e.swa_n_head_kv = static_cast<std::uint32_t>(*v);
        e.kv_lora_rank = static_cast<std::uint32_t>(a.uintOr("kv_lora_rank", 0, 1, kMaxDim));
        e.rope_dim = static_cast<std::uint32_t>(a.uintOr("rope_dim", 0, 1, kMaxDim));
        e.q_lora_rank = static_cast<std::uint32_t>(a.uintOr("q_lora_rank", 0, 1, kMaxDim));
        if ((e.kv_lora_rank > 0) != (e.rope_dim > 0))
            a.fail(e.kv_lora_rank > 0 ? "rope_dim" : "kv_lora_rank",
                   "MLA needs both kv_lora_rank and rope_dim");
        if (auto v = a.uintOpt("n_layer_kv_from_start", 1, e.n_layer))
            e.n_layer_kv_from_start = static_cast<std::uint32_t>(*v);
        a.rejectUnknown();
    }

    if (const json* rj = r.get("recurrent")) {
        ObjectReader rr(*rj, "recurrent");
        e.n_embd_r = rr.uint("n_embd_r", 0, kMaxParams);
        e.n_embd_s = rr.uint("n_embd_s", 0, kMaxParams);
        e.mixer_params = rr.uintOr("mixer_params", 0, 1, kMaxParams);
        if (e.n_embd_r == 0 && e.n_embd_s == 0)
            rr.fail("n_embd_s", "a recurrent layer needs some state (n_embd_r or n_embd_s)");
        // The pattern keys live in the same object; read them through a filtered copy so the
        // state keys above are not reported as unknown by the pattern reader.
        json pat = json::object();
        for (const char* k : {"all", "period", "full_at", "layers"})
            if (rj->contains(k)) pat[k] = (*rj)[k];
        ObjectReader pr(pat, "recurrent");
        e.recurrent = readPattern(pr, n_trunk);
        for (const char* k : {"all", "period", "full_at", "layers"})
            rr.get(k);
        rr.rejectUnknown();
    }

    if (const json* mj = r.get("moe")) {
        ObjectReader m(*mj, "moe");
        e.n_expert = static_cast<std::uint32_t>(m.uint("n_expert", 1, kMaxExperts));
        e.n_expert_used = static_cast<std::uint32_t>(m.uint("n_expert_used", 1, kMaxExperts));
        if (e.n_expert_used > e.n_expert)
            m.fail("n_expert_used", "exceeds n_expert (" + std::to_string(e.n_expert_used) + " > " +
                                        std::to_string(e.n_expert) + ")");
        e.n_expert_shared =
            static_cast<std::uint32_t>(m.uintOr("n_expert_shared", 0, 0, kMaxExperts));
        e.n_ff_exp = static_cast<std::uint32_t>(m.uint("n_ff_exp", 1, kMaxDim));
        e.n_ff_shexp = static_cast<std::uint32_t>(m.uintOr("n_ff_shexp", e.n_ff_exp, 1, kMaxDim));
        e.dense_lead = static_cast<std::uint32_t>(m.uintOr("dense_lead", 0, 0, n_trunk));
        m.rejectUnknown();
    }

    {
        ObjectReader p(r.need("params"), "params");
        e.params_total = p.uint("total", 1, kMaxParams);
        e.params_active = p.uintOr("active", e.params_total, 1, kMaxParams);
        if (e.params_active > e.params_total) p.fail("active", "exceeds total");
        p.rejectUnknown();
    }

    if (const json* y = r.get("yarn")) {
        // The YaRN extension the model card documents (e.g. Qwen3: factor 4 from 32K to 128K).
        ObjectReader yr(*y, "yarn");
        const json& f = yr.need("factor");
        if (!f.is_number() || !(f.get<double>() > 1) || f.get<double>() > 64)
            yr.fail("factor", "must be a number above 1 (at most 64)");
        else
            e.yarn_factor = f.get<double>();
        e.yarn_orig_ctx = yr.uint("original_context", 1, kMaxCtx);
        e.yarn_source = yr.str("source");
        yr.rejectUnknown();
    }

    if (const json* mp = r.get("mmproj")) {
        ObjectReader m(*mp, "mmproj");
        e.mmproj_bytes = readBytes(m, "file_bytes", true);
        e.mmproj_source = m.str("source");
        e.mmproj_name = m.strOr("name", "mmproj");
        m.rejectUnknown();
    }

    {
        const json& q = r.need("quants");
        if (!q.is_array() || q.empty()) r.fail("quants", "must be a non-empty array");
        std::set<std::string> names;
        for (std::size_t i = 0; i < q.size(); ++i) {
            ObjectReader qr(q[i], "quants[" + std::to_string(i) + "]");
            CatalogQuant cq;
            cq.name = qr.str("name");
            if (!names.insert(lower(cq.name)).second)
                qr.fail("name", "repeats quant \"" + cq.name + "\"");
            cq.file_bytes = readBytes(qr, "file_bytes", true);
            cq.file_bytes_precision = qr.uintOr("file_bytes_precision", 0, 0, cq.file_bytes);
            cq.source = qr.str("source");
            if (const json* g = qr.get("groups")) {
                ObjectReader gr(*g, qr.path("groups"));
                CatalogQuant::Groups grp;
                grp.token_embd = readBytes(gr, "token_embd", false);
                grp.output = readBytes(gr, "output", false);
                grp.attn = readBytes(gr, "attn", false);
                grp.ffn = readBytes(gr, "ffn", false);
                grp.experts = readBytes(gr, "experts", false);
                grp.other = readBytes(gr, "other", false);
                gr.rejectUnknown();
                const Bytes sum =
                    satAdd(satAdd(satAdd(grp.token_embd, grp.output), satAdd(grp.attn, grp.ffn)),
                           satAdd(grp.experts, grp.other));
                if (sum > cq.file_bytes) gr.fail("", "sum exceeds file_bytes");
                cq.groups = grp;
            }
            qr.rejectUnknown();
            e.quants.push_back(std::move(cq));
        }
    }
    e.default_quant = r.strOr("default_quant", "");
    if (!e.default_quant.empty() && !e.findQuant(e.default_quant))
        r.fail("default_quant", "names no listed quant (\"" + e.default_quant + "\")");

    r.rejectUnknown();
    return e;
}

Result<CatalogLoad> loadImplUnguarded(const std::string& json_text, bool strict) {
    auto parsed = parseJsonDocument(json_text, "catalog");
    if (!parsed) return parsed.error();
    const json& doc = *parsed;
    if (!doc.is_object()) return makeError(ErrorCode::ParseError, "catalog must be a JSON object");
    const auto schema = doc.find("schema");
    if (schema != doc.end() && schema->is_string()) {
        // A catalog written for a later Headroom may mean something this one cannot read
        // (a new key, a changed unit): say so instead of a bare "must be".
        if (const auto v = schemaVersion(schema->get<std::string>()); v && *v > kSchemaVersion)
            return makeError(ErrorCode::Unsupported,
                             "catalog schema \"" + schema->get<std::string>() +
                                 "\" is newer than this Headroom reads (\"" + kSchema + "\")",
                             "update Headroom to use this catalog");
    }
    if (schema == doc.end() || !schema->is_string() || *schema != kSchema)
        return makeError(
            ErrorCode::Unsupported, std::string("catalog schema must be \"") + kSchema + "\"",
            schema == doc.end() ? "schema is missing" : "got " + dumpJson(*schema, -1));
    const auto models = doc.find("models");
    if (models == doc.end() || !models->is_array())
        return makeError(ErrorCode::ParseError, "catalog needs a \"models\" array");
    for (auto it = doc.begin(); it != doc.end(); ++it)
        if (it.key() != "schema" && it.key() != "models" && it.key() != "comment")
            return makeError(ErrorCode::ParseError,
                             "catalog has an unknown top-level field \"" + it.key() + "\"");

    CatalogLoad out;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < models->size(); ++i) {
        std::string id;
        CatalogRejection rej;
        bool bad = false;
        try {
            CatalogEntry e = parseEntry((*models)[i], i, id);
            if (!ids.insert(e.id).second) {
                rej = {e.id, "id", "duplicate id (an earlier entry has it)"};
                bad = true;
            } else {
                out.catalog.add(std::move(e));
            }
        } catch (const FieldError& fe) {
            rej = {id, fe.field, fe.reason};
            bad = true;
        } catch (const json::exception& je) {
            // get<>() on a value the checks above let through: still this entry's fault.
            rej = {id, "", je.what()};
            bad = true;
        }
        if (!bad) continue;
        const std::string who = rej.id.empty() ? "#" + std::to_string(i) : rej.id;
        if (strict)
            return makeError(ErrorCode::InvalidArgument,
                             "catalog entry '" + who +
                                 "': " + (rej.field.empty() ? "" : rej.field + " ") + rej.reason,
                             "entry " + who + ", field " + rej.field);
        out.rejected.push_back(std::move(rej));
    }
    return out;
}

// Every json access above is type-checked or inside the per-entry catch; this guard is for
// what cannot be (memory exhaustion), so no exception leaves core.
Result<CatalogLoad> loadImpl(const std::string& json_text, bool strict) {
    try {
        return loadImplUnguarded(json_text, strict);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::ParseError, "catalog could not be read", e.what());
    }
}

} // namespace

bool LayerPattern::matches(std::uint32_t il, std::uint32_t n_trunk) const {
    if (!any || il >= n_trunk) return false; // MTP blocks are never SWA/recurrent (llama.cpp)
    if (all) return true;
    if (!layers.empty()) return std::binary_search(layers.begin(), layers.end(), il);
    if (period == 0) return false;
    return periodicPatternLayer(il, period, full_at_start, n_trunk);
}

const CatalogQuant* CatalogEntry::findQuant(const std::string& quant) const {
    const std::string q = lower(quant);
    for (const auto& cq : quants)
        if (lower(cq.name) == q) return &cq;
    return nullptr;
}

const CatalogQuant& CatalogEntry::defaultQuant() const {
    if (!default_quant.empty())
        if (const auto* q = findQuant(default_quant)) return *q;
    if (const auto* q = findQuant("Q4_K_M")) return *q;
    return quants.front();
}

const CatalogEntry* Catalog::find(const std::string& id) const {
    const std::string base = id.substr(0, id.find(':'));
    for (const auto& e : entries_)
        if (e.id == base) return &e;
    return nullptr;
}

Result<ModelShape> Catalog::shape(const std::string& id, const std::string& quant) const {
    const auto colon = id.find(':');
    const std::string base = id.substr(0, colon);
    std::string q = quant;
    if (q.empty() && colon != std::string::npos) q = id.substr(colon + 1);
    const CatalogEntry* e = find(base);
    if (!e) {
        std::string known;
        for (const auto& x : entries_)
            known += (known.empty() ? "" : ", ") + x.id;
        return makeError(ErrorCode::NotFound, "no catalog model '" + base + "'",
                         "known ids: " + known);
    }
    const CatalogQuant* cq = q.empty() ? &e->defaultQuant() : e->findQuant(q);
    if (!cq) {
        std::string known;
        for (const auto& x : e->quants)
            known += (known.empty() ? "" : ", ") + x.name;
        return makeError(ErrorCode::NotFound,
                         "catalog model '" + base + "' has no quant '" + q + "'",
                         "available: " + known);
    }
    return catalogShape(*e, *cq);
}

Result<Catalog> loadCatalog(const std::string& json_text) {
    auto r = loadImpl(json_text, true);
    if (!r) return r.error();
    return std::move(r->catalog);
}

Result<CatalogLoad> loadCatalogLenient(const std::string& json_text) {
    return loadImpl(json_text, false);
}

Result<Catalog> loadBuiltinCatalog() {
    auto path = findResource("catalog.json");
    if (!path)
        // A missing shipped file is a broken install (unreadable input, exit 3), not an argument.
        return makeError(ErrorCode::IoError, path.error().message, path.error().details);
    auto text = readRegularTextFile(*path);
    if (!text) return text.error();
    auto cat = loadCatalog(*text);
    // A bad entry in the shipped (or $HEADROOM_RESOURCES) catalog is unreadable input, exit 3
    // in every command, not a bad argument.
    if (!cat) return asFileContentError(cat.error(), "'" + *path + "'");
    return cat;
}

} // namespace headroom
