// The built-in model catalog: real, cited hyperparameters and real GGUF file sizes of popular
// open models, turned into a ModelShape per quant so the planner can price a model before it
// is downloaded. Once a file is on disk its GGUF header is the authority; the catalog is a prior.
//
// Document (resources/catalog.json; full description with examples in docs/catalog.md):
//
//   { "schema": "headroom.catalog/1", "models": [ ENTRY, ... ] }
//
// Each ENTRY gives a model's id, name, GGUF architecture, sources, trained context, vocabulary,
// widths, layer count, attention (heads, KV heads, head dims, sliding window and its pattern,
// MLA ranks), optional recurrent, moe, nextn_layers and yarn blocks, parameter counts, an
// optional projector and its quants (file bytes with their precision and source). The table of
// every key, its type and default is docs/catalog.md ("Document"); unknown keys are an error, so
// a typo never silently prices a model wrong.
//
// Weight split (an estimate; the total is real; core/arch/shape_from_catalog.cpp): without
// `groups`, a quant's file_bytes minus catalogHeaderEstimate() is distributed over token_embd /
// output / each block's attention, FFN and routed experts in proportion to their parameter counts
// computed from the entry's dims. So ModelShape::weightBytes() == file_bytes − header estimate − MTP
// block bytes (skipped by llama.cpp unless MTP is on) + the output duplicate of a tied embedding
// (llama.cpp loads token_embd a second time as the output head: TENSOR_DUPLICATED in
// llama-model.cpp).
#pragma once

#include "model_shape.h"
#include "result.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

// Which layers follow a repeating pattern, as llama_hparams::set_swa_pattern() /
// set_recr_pattern() express it, or an explicit list.
struct LayerPattern {
    bool any = false;                  // false: no layer matches
    bool all = false;                  // every block (MTP blocks excluded)
    std::uint32_t period = 0;          // with full_at_start: llama's dense_first
    bool full_at_start = false;        // "start": il % period == 0 is the odd one out
    std::vector<std::uint32_t> layers; // explicit indices (used when non-empty)
    bool matches(std::uint32_t il, std::uint32_t n_trunk) const;
};

struct CatalogQuant {
    std::string name; // "Q4_K_M", "MXFP4", "UD-Q4_K_XL"
    Bytes file_bytes = 0;
    Bytes file_bytes_precision = 0; // 0 = exact
    std::string source;             // URL of the listing the size came from
    struct Groups {
        Bytes token_embd = 0, output = 0, attn = 0, ffn = 0, experts = 0, other = 0;
    };
    std::optional<Groups> groups;
};

struct CatalogEntry {
    std::string id, name, architecture;
    std::vector<std::string> sources;
    std::uint64_t n_ctx_train = 0;
    std::uint32_t n_vocab = 0, n_embd = 0, n_layer = 0;
    std::vector<std::uint32_t> n_ff; // per layer
    bool tied_embeddings = false;
    bool ffn_gated = true;
    // attention
    std::vector<std::uint32_t> n_head;    // per layer
    std::vector<std::uint32_t> n_head_kv; // per layer
    std::uint32_t head_dim_k = 0, head_dim_v = 0;
    std::uint32_t sliding_window = 0;
    LayerPattern swa;
    std::uint32_t swa_head_dim_k = 0, swa_head_dim_v = 0; // 0 = same as full
    std::optional<std::uint32_t> swa_n_head_kv;
    std::uint32_t kv_lora_rank = 0, rope_dim = 0, q_lora_rank = 0;
    std::optional<std::uint32_t> n_layer_kv_from_start;
    // recurrent
    LayerPattern recurrent;
    std::uint64_t n_embd_r = 0, n_embd_s = 0, mixer_params = 0;
    // moe
    std::uint32_t n_expert = 0, n_expert_used = 0, n_expert_shared = 0;
    std::uint32_t n_ff_exp = 0, n_ff_shexp = 0, dense_lead = 0;
    std::uint32_t nextn_layers = 0;
    // yarn { factor, original_context, source }: the YaRN extension the model card documents.
    double yarn_factor = 0;
    std::uint64_t yarn_orig_ctx = 0;
    std::string yarn_source;
    std::uint64_t params_total = 0, params_active = 0;
    Bytes mmproj_bytes = 0;
    std::string mmproj_name, mmproj_source;
    std::string default_quant;
    std::vector<CatalogQuant> quants;

    bool isMla() const { return kv_lora_rank > 0; }
    std::uint32_t nTrunk() const { return n_layer - nextn_layers; }
    const CatalogQuant* findQuant(const std::string& quant) const; // case-insensitive
    const CatalogQuant& defaultQuant() const;                      // quants is never empty
};

// One entry the lenient loader left out, and why.
struct CatalogRejection {
    std::string id; // "" when the entry had no usable id (then "#<index>" in message)
    std::string
        field; // dotted path inside the entry: "attention.n_head_kv", "quants[2].file_bytes"
    std::string reason;
};

class Catalog {
public:
    const std::vector<CatalogEntry>& entries() const { return entries_; }
    std::size_t size() const { return entries_.size(); }
    // Exact id; "id:QUANT" is accepted too (the quant part is ignored here).
    const CatalogEntry* find(const std::string& id) const;
    // ModelShape of `id` at `quant` ("" = the entry's default); `id` may carry ":QUANT", which
    // wins over an empty `quant`. NotFound names the id or the quant and lists what exists.
    Result<ModelShape> shape(const std::string& id, const std::string& quant = {}) const;

    // Used by the loaders.
    void add(CatalogEntry entry) { entries_.push_back(std::move(entry)); }

private:
    std::vector<CatalogEntry> entries_;
};

struct CatalogLoad {
    Catalog catalog;
    std::vector<CatalogRejection> rejected;
};

// Strict: the first bad entry is an Error (ParseError for broken JSON, InvalidArgument for a bad
// entry) whose message names the entry id and the field.
Result<Catalog> loadCatalog(const std::string& json_text);
// Lenient: good entries plus the rejected ones with reasons. Still an Error when the document
// itself is unusable (not JSON, wrong schema, no "models" array).
Result<CatalogLoad> loadCatalogLenient(const std::string& json_text);
// resources/catalog.json via findResource(), loaded strictly.
Result<Catalog> loadBuiltinCatalog();

} // namespace headroom

// The catalog's shapes are built next to the GGUF ones (core/arch/shape_from_catalog.h); every
// user of the catalog keeps getting catalogShape() from here.
#include "arch/shape_from_catalog.h"
