// headroom-cli catalog: the built-in models, each planned on this hardware and ranked by what it
// can do here (resident before spilled before refused, then the longest context, then speed).
#include "catalog.h"
#include "commands.h"
#include "plan_args.h"
#include "planner.h"
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
};

struct Row {
    const CatalogEntry* entry = nullptr;
    std::string quant;
    Bytes weights = 0;
    Verdict best = Verdict::Refused; // of the largest rung that runs
    std::uint32_t largest = 0;       // largest context that runs (resident or spilled)
    std::uint32_t largest_resident = 0;
    double decode_tok_s = 0; // at the launch decision
    Verdict at_target = Verdict::Refused;
    std::string error;
};

// The message with its details (a JSON error's line and column, the accepted forms).
std::string full(const Error& e) {
    return e.details.empty() ? e.message : e.message + " (" + e.details + ")";
}

int rank(Verdict v) {
    return v == Verdict::Resident ? 0 : v == Verdict::Spilled ? 1 : 2;
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
        addParseCheck(sub, [cmd]() -> std::optional<Error> {
            if (cmd->fits_at.empty()) return std::nullopt;
            auto t = parseTokens(cmd->fits_at);
            if (t && *t > 0) return std::nullopt;
            return makeError(ErrorCode::InvalidArgument,
                             "--fits-at '" + cmd->fits_at +
                                 "' is not a token count (e.g. 131072 or 128K)");
        });
        return [cmd]() -> int {
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
            auto catalog = loadBuiltinCatalog();
            if (!catalog) return fail("catalog", full(catalog.error()), kExitUnreadableInput);

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
                for (const auto& r : plan->rungs) {
                    if (r.verdict == Verdict::Refused) continue;
                    if (r.requested_context >= row.largest) {
                        row.largest = r.requested_context;
                        row.best = r.verdict;
                    }
                    if (r.verdict == Verdict::Resident)
                        row.largest_resident = std::max(row.largest_resident, r.requested_context);
                    if (fits_at && r.requested_context == *fits_at) row.at_target = r.verdict;
                }
                if (plan->decision.rung_index >= 0)
                    row.decode_tok_s = plan->rungs[plan->decision.rung_index].speed.decode_tok_s;
                if (fits_at && row.at_target == Verdict::Refused) continue;
                rows.push_back(row);
            }
            std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
                const Verdict va = a.largest_resident ? Verdict::Resident : a.best;
                const Verdict vb = b.largest_resident ? Verdict::Resident : b.best;
                if (rank(va) != rank(vb)) return rank(va) < rank(vb);
                const std::uint32_t ca = a.largest_resident ? a.largest_resident : a.largest;
                const std::uint32_t cb = b.largest_resident ? b.largest_resident : b.largest;
                if (ca != cb) return ca > cb;
                return a.decode_tok_s > b.decode_tok_s;
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
                                        {"largest_context", r.largest},
                                        {"largest_resident_context", r.largest_resident},
                                        {"verdict_at_largest", verdictName(r.best)},
                                        {"decode_tok_s", r.decode_tok_s}};
                    if (!r.error.empty()) j["error"] = r.error;
                    arr.push_back(j);
                }
                std::cout << dumpJson(nlohmann::json{{"schema", "headroom.catalog/1"},
                                                     {"hardware", hw->label},
                                                     {"models", arr}})
                          << "\n";
                return kExitOk;
            }
            std::printf("Hardware: %s\n\n%-34s %-12s %-8s %10s %8s %10s %10s %8s\n",
                        hw->label.c_str(), "model", "arch", "quant", "weights", "native",
                        "resident", "runs at", "tok/s");
            for (const auto& r : rows) {
                if (!r.error.empty()) {
                    std::printf("%-34s %s\n", r.entry->id.c_str(), r.error.c_str());
                    continue;
                }
                std::printf(
                    "%-34s %-12s %-8s %10s %8s %10s %10s %8.1f\n", r.entry->id.c_str(),
                    r.entry->architecture.c_str(), r.quant.c_str(), formatBytes(r.weights).c_str(),
                    formatTokens(r.entry->n_ctx_train).c_str(),
                    r.largest_resident ? formatTokens(r.largest_resident).c_str() : "-",
                    r.largest ? formatTokens(r.largest).c_str() : "refused", r.decode_tok_s);
            }
            std::printf("\n'resident': largest context with every weight on the GPU; 'runs at': "
                        "largest context that runs at all "
                        "(weights spilled to RAM); tok/s at the launch decision (estimate).\n");
            return kExitOk;
        };
    });

} // namespace

} // namespace headroom::cli
