// The draft model of speculative decoding (-md, llama.cpp v0.5.0 --spec-type draft-simple): its
// options as llama-server derives them from the target's, and its bytes on each device, priced
// with the same pricing and placement as any model at the target's context.
#include "planner.h"
#include "planner/planner_internal.h"

namespace headroom::detail {

PlanOptions draftPlanOptions(const PlanOptions& target) {
    // common/speculative.cpp common_base_params_to_speculative (llama.cpp v0.5.0): a copy of the
    // target's parameters with the draft's model, -ngld, tensor overrides (its own, none here:
    // the target's -ot and --n-cpu-moe, which common/arg.cpp turns into overrides, are replaced)
    // and -ctkd/-ctvd; devices, -ts, -sm, -fa, -b, -ub, -np and -kvu stay the target's.
    PlanOptions d = target;
    d.draft.reset();
    d.cache_type_k = target.draft->cache_type_k;
    d.cache_type_v = target.draft->cache_type_v;
    d.pinned.gpu_layers = target.draft->gpu_layers;
    d.pinned.tensor_overrides.clear();
    d.pinned.n_cpu_moe.reset();
    d.pinned.cpu_moe = false;
    // One output row per sequence (result.n_outputs_max = n_parallel): llama-server priced with
    // no drafting of its own, and no MTP head of the draft's.
    d.mtp = MtpMode::Off;
    // The projector is libmtmd's, loaded once for the target; the backend samplers are set on
    // the target's context only (common_init_from_params), never on the draft's
    // (common_speculative_init_result builds its context from the bare context parameters).
    d.mmproj = false;
    d.mmproj_bytes.reset();
    d.backend_sampling = false;
    d.beside_device_bytes.clear();
    d.beside_host_bytes = 0;
    d.extra_reserve = 0;
    return d;
}

DraftUse priceDraft(const ModelShape& draft, const ResolvedOptions& opt, const MemoryBudget& budget,
                    std::uint32_t target_n_ctx) {
    // common_speculative_init_result: cparams.n_ctx = llama_n_ctx(ctx_tgt), the target's padded
    // context, and llama_init_from_model pads and splits it the same way again.
    const ContextPrice price = priceContext(draft, opt, target_n_ctx);
    PlacementChoice choice = pinnedChoice(draft, opt, budget);
    Assignment a = assign(draft, price, opt, budget, choice);
    DraftUse u;
    u.model_id = draft.id;
    u.gpu_layers = choice.ngl;
    u.context = price.geometry.n_ctx;
    // The backends are the target's: the draft's context creates its backends on devices whose
    // runtime (CUDA context, Vulkan instance) the target's already set up, and the projector is
    // the target's. Neither is charged twice.
    for (Terms& t : a.devices) {
        t.overhead = 0;
        t.mmproj = 0;
    }
    a.host.overhead = 0;
    a.host.mmproj = 0;
    u.devices = std::move(a.devices);
    u.host = a.host;
    return u;
}

void bookDraft(Assignment& a, const ContextPrice& price) {
    for (size_t d = 0; d < a.devices.size() && d < price.draft_devices.size(); ++d)
        a.devices[d].draft = price.draft_devices[d];
    a.host.draft = price.draft_host;
}

Result<bool> validateDraft(const ModelShape& target, const PlanOptions& o) {
    auto bad = [](std::string m, std::string d = {}) {
        return makeError(ErrorCode::InvalidArgument, std::move(m), std::move(d));
    };
    const DraftModel& d = *o.draft;
    if (!d.model) return bad("-md/--model-draft names no model");
    const ModelShape& m = *d.model;
    if (o.llama_version != LlamaVersion::V0_5_0)
        return bad("a draft model (-md) is priced for llama.cpp v0.5.0 only (the flags and the "
                   "draft context are v0.5.0's)",
                   "use --llama-version v0.5.0");
    if (o.mtp == MtpMode::On)
        return bad("-md and --mtp on are two drafters; llama-server runs one speculative type "
                   "here",
                   "drop --mtp on, or the draft model");
    if (o.program != Program::LlamaServer)
        return bad("a draft model is llama-server's speculative decoding (--program library "
                   "loads one model)",
                   "use --program llama-server");
    if (o.pinned.split_mode == SplitMode::Tensor)
        return bad("-sm tensor with a draft model (-md) is not priced",
                   "use -sm layer, or drop the draft model");
    // common/speculative.cpp common_speculative_are_compatible: the vocabularies may differ by at
    // most SPEC_VOCAB_MAX_SIZE_DIFFERENCE tokens (it also compares vocab type, BOS/EOS and token
    // texts, which a catalog entry does not carry).
    if (target.n_vocab && m.n_vocab) {
        const std::uint32_t diff =
            target.n_vocab > m.n_vocab ? target.n_vocab - m.n_vocab : m.n_vocab - target.n_vocab;
        if (diff > llama::kDraftVocabSizeMaxDiff)
            return bad("draft model '" + m.id + "' has " + std::to_string(m.n_vocab) +
                           " tokens and '" + target.id + "' " + std::to_string(target.n_vocab) +
                           ": llama.cpp refuses a draft whose vocabulary differs by more than " +
                           std::to_string(llama::kDraftVocabSizeMaxDiff),
                       "pick a draft of the same family (same tokenizer)");
    }
    if (d.n_max == 0 || d.n_max > 256) return bad("--spec-draft-n-max must be between 1 and 256");
    if (isQuantizedCacheType(d.cache_type_v) && o.flash_attn == FlashAttn::Off)
        return bad("a quantized draft V cache (-ctvd " + std::string(ggmlTypeName(d.cache_type_v)) +
                       ") requires flash attention",
                   "use -fa on (or auto), or -ctvd f16");
    PlanOptions alone = draftPlanOptions(o);
    if (auto ok = validateOptions(m, alone); !ok)
        return makeError(ErrorCode::InvalidArgument, "draft model: " + ok.error().message,
                         ok.error().details);
    return true;
}

} // namespace headroom::detail
