// The smallest catalog entry core/catalog.cpp's strict loader accepts, and a document holding
// entries: shared by the catalog, catalog-update, CLI and window tests, which break one field at a
// time or install it as an update. Four blocks of 64, 4 heads (2 KV) of 16, vocabulary 1000, one
// Q8_0 quant of 10 MB.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace headroom::test {

inline nlohmann::json tinyCatalogEntry(const std::string& id = "tiny") {
    nlohmann::json e = {
        {"id", id},
        {"name", "Tiny"},
        {"architecture", "llama"},
        {"sources", {"https://example.org/config.json"}},
        {"n_ctx_train", 4096},
        {"n_vocab", 1000},
        {"n_embd", 64},
        {"n_layer", 4},
        {"n_ff", 256},
        {"attention", {{"n_head", 4}, {"n_head_kv", 2}, {"head_dim_k", 16}, {"head_dim_v", 16}}},
        {"params", {{"total", 1000000}}},
        {"quants",
         {{{"name", "Q8_0"}, {"file_bytes", 10000000}, {"source", "https://example.org/q8"}}}}};
    return e;
}

inline std::string catalogDocument(const std::vector<nlohmann::json>& entries,
                                   const std::string& schema = "headroom.catalog/1") {
    return nlohmann::json{{"schema", schema}, {"models", entries}}.dump();
}

} // namespace headroom::test
