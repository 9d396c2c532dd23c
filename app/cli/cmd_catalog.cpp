// headroom-cli catalog: the catalog's models, each planned on this hardware and ranked by what it
// can do here (resident before spilled before refused, then the longest context, then speed);
// --update FILE|URL installs a newer catalog over the built-in one, --reset removes it
// (core/catalog_update.h).
#include "catalog.h"
#include "catalog_update.h"
#include "commands.h"
#include "model_ranking.h"
#include "plan_args.h"
#include "planner.h"
#include "remote/remote_gguf.h"
#include "text_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace headroom::cli {

namespace {

struct CatalogCommand {
    HardwareFlags hardware;
    OptionFlags options;
    std::string fits_at;
    bool json = false;
    std::string update; // FILE or URL
    bool reset = false;
};

struct Row {
    const CatalogEntry* entry = nullptr;
    std::string quant;
    Bytes weights = 0;
    ModelStanding standing;
    std::string error;
};

// The message with its details (a JSON error's line and column, the accepted forms).
std::string full(const Error& e) {
    return e.details.empty() ? e.message : e.message + " (" + e.details + ")";
}

nlohmann::json updateJson(const CatalogUpdateSummary& u) {
    return {{"path", u.path}, {"models", u.models}, {"added", u.added}, {"replaced", u.replaced}};
}

int runUpdate(const std::string& source, bool json) {
    // A file is read as every input file is (regular files only, size-capped); a URL's body
    // under the same cap.
    auto text =
        remote::readDocument(source, kMaxTextFileBytes, remote::remoteOptionsFromEnvironment());
    if (!text) return fail("catalog", full(text.error()), kExitUnreadableInput);
    auto shipped = loadBuiltinCatalog();
    if (!shipped) return fail("catalog", full(shipped.error()), kExitUnreadableInput);
    auto installed = installCatalogUpdate(*text, source, *shipped);
    if (!installed)
        return fail("catalog", full(installed.error()) + "; the catalog in use is unchanged",
                    kExitUnreadableInput);
    if (json) {
        nlohmann::json j = updateJson(*installed);
        j["schema"] = "headroom.catalog-update/1";
        j["source"] = source;
        std::cout << dumpJson(j) << "\n";
        return kExitOk;
    }
    std::printf("Catalog updated from %s: %zu models (%zu new, %zu replacing built-in ones), kept "
                "in %s.\n",
                source.c_str(), installed->models, installed->added, installed->replaced,
                installed->path.c_str());
    return kExitOk;
}

int runReset() {
    auto removed = removeCatalogUpdate();
    if (!removed) return fail("catalog", full(removed.error()), kExitUnreadableInput);
    std::printf(*removed ? "Catalog update removed: the built-in catalog is in use.\n"
                         : "No catalog update is installed: the built-in catalog is in use.\n");
    return kExitOk;
}

CommandRegistrar reg(
    "catalog", "list the built-in models, ranked for this hardware",
    [](CLI::App& sub) -> std::function<int()> {
        auto cmd = std::make_shared<CatalogCommand>();
        addHardwareFlags(sub, cmd->hardware);
        addOptionFlags(sub, cmd->options);
        sub.add_option("--fits-at", cmd->fits_at,
                       "only models that run (resident or spilled) at this context, e.g. 128K");
        sub.add_flag("--json", cmd->json, "print JSON");
        auto* update = sub.add_option(
            "--update", cmd->update,
            "install a newer catalog (a file or an http(s):// URL) over the built-in one; it is "
            "checked whole first, and the catalog in use stays as it was on any error");
        sub.add_flag("--reset", cmd->reset, "remove an installed catalog update")->excludes(update);
        addParseCheck(sub, [cmd, update]() -> std::optional<Error> {
            if (update->count() && cmd->update.empty())
                return makeError(ErrorCode::InvalidArgument,
                                 "--update needs a catalog file or an http(s):// URL");
            if (cmd->fits_at.empty()) return std::nullopt;
            auto t = parseTokens(cmd->fits_at);
            if (t && *t > 0) return std::nullopt;
            return makeError(ErrorCode::InvalidArgument,
                             "--fits-at '" + cmd->fits_at +
                                 "' is not a token count (e.g. 131072 or 128K)");
        });
        return [cmd]() -> int {
            if (!cmd->update.empty()) return runUpdate(cmd->update, cmd->json);
            if (cmd->reset) return runReset();
            std::optional<std::uint32_t> fits_at;
            if (!cmd->fits_at.empty()) // a token count above 0 (the parse check)
                fits_at = static_cast<std::uint32_t>(*parseTokens(cmd->fits_at));
            OptionFlags of = cmd->options;
            if (fits_at) of.ctx = std::to_string(*fits_at);
            auto options = resolveOptions(of);
            if (!options)
                return fail("catalog", full(options.error()), exitCodeFor(options.error()));
            auto hw = resolveHardware(cmd->hardware);
            if (!hw) return fail("catalog", full(hw.error()), exitCodeFor(hw.error()));
            auto in_use = loadCatalogInUse();
            if (!in_use) return fail("catalog", full(in_use.error()), kExitUnreadableInput);
            const Catalog* catalog = &in_use->catalog;

            std::vector<Row> rows;
            for (const auto& e : catalog->entries()) {
                Row row;
                row.entry = &e;
                auto shape = catalog->shape(e.id);
                if (!shape) {
                    row.error = shape.error().message;
                    rows.push_back(row);
                    continue;
                }
                row.quant = shape->quant;
                row.weights = shape->weightBytes();
                PlanOptions o = *options;
                // An explicit -c larger than this model's native context is priced at native.
                if (o.context && shape->n_ctx_train && *o.context > shape->n_ctx_train)
                    o.context.reset();
                auto plan = makePlan(*shape, *hw, o);
                if (!plan) {
                    row.error = plan.error().message;
                    rows.push_back(row);
                    continue;
                }
                row.standing = standingOf(*plan);
                if (fits_at) {
                    Verdict at_target = Verdict::Refused;
                    for (const auto& r : plan->rungs)
                        if (r.requested_context == *fits_at) at_target = r.verdict;
                    if (at_target == Verdict::Refused) continue;
                }
                rows.push_back(row);
            }
            std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
                return ranksAbove(a.standing, b.standing);
            });

            if (cmd->json) {
                nlohmann::json arr = nlohmann::json::array();
                for (const auto& r : rows) {
                    nlohmann::json j = {{"id", r.entry->id},
                                        {"name", r.entry->name},
                                        {"architecture", r.entry->architecture},
                                        {"quant", r.quant},
                                        {"params", r.entry->params_total},
                                        {"weights_bytes", r.weights},
                                        {"n_ctx_train", r.entry->n_ctx_train},
                                        {"largest_context", r.standing.largest},
                                        {"largest_resident_context", r.standing.largest_resident},
                                        {"verdict_at_largest", verdictName(r.standing.best)},
                                        {"decode_tok_s", r.standing.decode_tok_s},
                                        {"bits_per_weight", r.standing.bits_per_weight}};
                    if (!r.error.empty()) j["error"] = r.error;
                    arr.push_back(j);
                }
                nlohmann::json doc{{"schema", "headroom.catalog/1"},
                                   {"hardware", hw->label},
                                   {"ranking", kRankingBasis},
                                   {"models", arr}};
                doc["catalog_update"] = in_use->update.path.empty() ? nlohmann::json(nullptr)
                                                                    : updateJson(in_use->update);
                std::cout << dumpJson(doc) << "\n";
                return kExitOk;
            }
            if (!in_use->update.path.empty())
                std::printf("Catalog: built-in, with the update %s (%zu models: %zu new, %zu "
                            "replacing built-in ones)\n",
                            in_use->update.path.c_str(), in_use->update.models,
                            in_use->update.added, in_use->update.replaced);
            std::printf("Hardware: %s\n\n%-34s %-14s %-8s %10s %8s %10s %10s %8s\n",
                        hw->label.c_str(), "model", "arch", "quant", "weights", "native",
                        "resident", "runs at", "tok/s");
            for (const auto& r : rows) {
                if (!r.error.empty()) {
                    std::printf("%-34s %s\n", r.entry->id.c_str(), r.error.c_str());
                    continue;
                }
                std::printf(
                    "%-34s %-14s %-8s %10s %8s %10s %10s %8.1f\n", r.entry->id.c_str(),
                    r.entry->architecture.c_str(), r.quant.c_str(), formatBytes(r.weights).c_str(),
                    formatTokens(r.entry->n_ctx_train).c_str(),
                    r.standing.largest_resident ? formatTokens(r.standing.largest_resident).c_str()
                                                : "-",
                    r.standing.largest ? formatTokens(r.standing.largest).c_str() : "refused",
                    r.standing.decode_tok_s);
            }
            std::printf("\nRanked: %s.\n", kRankingBasis);
            std::printf("'resident': largest context with every weight on the GPU; 'runs at': "
                        "largest context that runs at all "
                        "(weights spilled to RAM); tok/s at the launch decision (estimate).\n");
            return kExitOk;
        };
    });

} // namespace

} // namespace headroom::cli
