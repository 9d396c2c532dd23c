// The planner's policies on hand-built shapes: verdicts, launch window, placement, refusals.
#include "common/plan_helpers.h"
#include "planner.h"
#include "planner/planner_internal.h"
#include "pricing.h"

#include <QtTest>

using namespace headroom;
using namespace headroom::test;

class TestPlanner : public QObject {
    Q_OBJECT

private slots:
    void ladderRungsAreFloorTimesOneAndAHalfUpToNative() {
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false));
        // native 131072: 65536, 98304, then 147456 >= native stops the walk; native closes it.
        QCOMPARE(p.rungs.size(), size_t{3});
        QCOMPARE(p.rungs[0].requested_context, 65536u);
        QCOMPARE(p.rungs[1].requested_context, 98304u);
        QCOMPARE(p.rungs[2].requested_context, 131072u);
    }

    void launchWindowIsTheLargestZeroSpillRung() {
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false));
        // Usable VRAM = 24 GiB - max(2 GiB, 9 % = 2.16 GiB) = 21.84 GiB. Weights 7400 MiB = 7.23
        // GiB; f16 KV is 128 KiB per token: 8 GiB at 64K, 12 GiB at 96K, 16 GiB at 128K. With ~0.4
        // GiB overhead and < 1 GiB compute, 96K needs ~20.5 GiB (fits) and 128K ~24.5 GiB (does
        // not).
        QCOMPARE(p.rungs[0].verdict, Verdict::Resident);
        QCOMPARE(p.rungs[1].verdict, Verdict::Resident);
        QCOMPARE(p.rungs[2].verdict, Verdict::Spilled);
        QCOMPARE(p.decision.context, 98304u);
        QVERIFY(!p.decision.spilled);
        QVERIFY(p.decision.reasons.back().find("largest zero-spill rung (96K)") !=
                std::string::npos);
    }

    void aDenseModelThatDoesNotFitKeepsItsFirstBlocksOnTheCpu() {
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false));
        const Rung& r = p.rungs[2];
        // Fewer layers offloaded: llama.cpp offloads the last -ngl layers (output counts as one).
        QVERIFY(r.placement.gpu_layers < 33);
        QVERIFY(r.placement.spill_bytes > 0);
        QVERIFY(r.devices[0].bytes <= static_cast<Bytes>(r.devices[0].budget_bytes));
        QVERIFY(r.host.kv() > 0); // the CPU layers keep their KV in RAM
    }

    void spilledLaunchHoldsTheFloorWhenNothingFitsResident() {
        // 12 GiB card: usable 10 GiB; weights 7.23 GiB + 8 GiB KV at 64K cannot be resident, and
        // KV at 64K (8 GiB) is over 15 % of VRAM (1.5 GiB), so the window stays at the floor.
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({12 * GiB}, 64 * GiB, false));
        QCOMPARE(p.rungs[0].verdict, Verdict::Spilled);
        QCOMPARE(p.decision.context, 65536u);
        QVERIFY(p.decision.spilled);
        QVERIFY(p.decision.reasons.back().find("floor held at 64K") != std::string::npos);
    }

    void physicsRefusesWhenTheFloorExceedsVramPlusRam() {
        // 4 GiB card (usable 2 GiB) + 4 GiB RAM = 6 GiB < 7.23 GiB weights + 8 GiB KV.
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({4 * GiB}, 4 * GiB, false));
        QVERIFY(p.decision.refused);
        const Rung& floor = p.rungs[0];
        QCOMPARE(floor.verdict, Verdict::Refused);
        QVERIFY(floor.refusal.has_value());
        QCOMPARE(floor.refusal->code, RefusalCode::PhysicsFloor);
        // available = (4 GiB - 2 GiB margin) + 4 GiB RAM = 6 GiB.
        QCOMPARE(floor.refusal->available_bytes, SignedBytes{6} * static_cast<SignedBytes>(GiB));
        QCOMPARE(floor.refusal->shortfall_bytes,
                 static_cast<SignedBytes>(floor.refusal->needed_bytes) -
                     floor.refusal->available_bytes);
        QVERIFY(!p.launch.has_value());
    }

    void refusedRungsOfferRemediesThatArePricedAndTheFixingOnesComeFirst() {
        // 8 GiB card (usable 6 GiB) + 16 GiB RAM = 22 GiB: 128K f16 needs 7.23 + 16 GiB KV ->
        // refused.
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({8 * GiB}, 16 * GiB, false));
        const Rung& r = p.rungs[2];
        QCOMPARE(r.verdict, Verdict::Refused);
        const auto& rem = r.refusal->remedies;
        QVERIFY(!rem.empty());
        QVERIFY(rem.front().fixes);
        bool q8 = false;
        for (const auto& m : rem) {
            if (m.kind != RemedyKind::KvCacheQ8) continue;
            q8 = true;
            // q8_0 saves 30/64 of the 16 GiB f16 KV = 7.5 GiB (compute barely moves).
            QVERIFY(m.saves_bytes > static_cast<SignedBytes>(7 * GiB));
            QVERIFY(m.fixes);
            QCOMPARE(m.options.cache_type_v, GgmlType::Q8_0);
        }
        QVERIFY(q8);
    }

    void moeSpillMovesTheExpertsOfTheFewestLeadingBlocks() {
        const ModelShape m = moeShape();
        const HardwareSnapshot hw = snapshotFromSizes({8 * GiB}, 64 * GiB, false);
        const Plan p = planOrFail(m, hw);
        const Rung& r = p.rungs[0];
        QCOMPARE(r.verdict, Verdict::Spilled);
        const std::uint32_t n = r.placement.n_cpu_moe;
        QVERIFY(n > 0);
        QCOMPARE(r.placement.gpu_layers, 9u); // every block stays offloaded
        // Minimal: one block fewer would overflow the card.
        ResolvedOptions ro;
        ro.backend = Backend::Cuda;
        const ContextPrice price = priceContext(m, ro, r.requested_context);
        detail::PlacementChoice less;
        less.ngl = 9;
        less.n_cpu_moe = n - 1;
        const detail::Assignment a = detail::assign(m, price, ro, p.budget, less);
        QVERIFY(static_cast<SignedBytes>(a.devices[0].total()) > p.budget.devices[0].usable);
        // 64 experts per block: n blocks' worth on the host.
        QCOMPARE(r.placement.expert_slots_host, std::uint64_t{64} * n);
        QCOMPARE(r.placement.spill_bytes, Bytes{n} * GiB);
        // KV is 2 KiB per token (8 blocks x 64 x 2 B x K and V): 256 MiB at 128K stays under 15 %
        // of the 6 GiB usable, so the spilled window grows to native and launches with its own
        // placement.
        QCOMPARE(p.decision.rung_index, 2);
        QVERIFY(p.launch.has_value());
        QCOMPARE(p.launch->n_cpu_moe, p.rungs[2].placement.n_cpu_moe);
    }

    void hybridSpillMovesOnlyRecurrentBlockFfns() {
        ModelShape m = llama8bLike();
        for (std::uint32_t i = 0; i < m.nLayer(); ++i) {
            if (i % 4 == 3) continue; // every 4th block keeps full attention
            m.layers[i].attention = AttentionKind::Recurrent;
            m.layers[i].n_embd_k_gqa = m.layers[i].n_embd_v_gqa = 0;
            m.layers[i].recurrent_r = 3 * 8192;
            m.layers[i].recurrent_s = 128 * 4096;
        }
        const Plan p = planOrFail(m, snapshotFromSizes({8 * GiB}, 64 * GiB, false));
        const Rung& r = p.rungs[0];
        QCOMPARE(r.verdict, Verdict::Spilled);
        QVERIFY(!r.placement.ffn_blocks_to_host.empty());
        for (auto b : r.placement.ffn_blocks_to_host)
            QVERIFY(b % 4 != 3);
        QVERIFY(r.placement.override_tensor.rfind("blk\\.(0|1|2", 0) == 0);
    }

    void unifiedMemoryNeverSpillsAndRefusesPastThePool() {
        // 16 GiB pool: usable 12.8 GiB. 64K needs 7.23 + 8 GiB -> refused on the pool.
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({16 * GiB}, 16 * GiB, true));
        QCOMPARE(p.rungs[0].verdict, Verdict::Refused);
        QCOMPARE(p.rungs[0].refusal->budget, BudgetName::UmaPool);
        // q8_0 KV halves it: 7.23 + 4.25 GiB fits 12.8 GiB resident.
        PlanOptions o;
        o.cache_type_k = o.cache_type_v = GgmlType::Q8_0;
        const Plan q = planOrFail(llama8bLike(), snapshotFromSizes({16 * GiB}, 16 * GiB, true), o);
        QCOMPARE(q.rungs[0].verdict, Verdict::Resident);
        for (const auto& r : q.rungs)
            QVERIFY(r.verdict != Verdict::Spilled);
    }

    void cpuOnlyPlansAgainstEightyPercentOfRam() {
        // 32 GiB RAM -> 25.6 GiB usable: 64K (15.2 GiB) and 96K (19.2) fit, 128K (23.2 + compute)
        // too.
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({}, 32 * GiB, false));
        QVERIFY(p.budget.devices.empty());
        QCOMPARE(p.rungs[0].verdict, Verdict::Resident);
        QCOMPARE(p.rungs[0].placement.gpu_layers, 0u);
        QCOMPARE(p.rungs[0].host_bytes, p.rungs[0].totals.total());
    }

    void aTiedOutputHeadOnTheCpuDropsOnlyTheDuplicateEmbeddingNotTheOutputNorm() {
        // Tied embeddings: output_bytes = output_norm (16 KiB) + token_embd loaded again
        // (TENSOR_DUPLICATED). On the CPU llama.cpp keeps one copy of token_embd but still loads
        // output_norm: measured on Granite-3.1-8B (tests/validation) the planner was 16 384 bytes
        // short before this.
        ModelShape m = llama8bLike();
        m.output_tied_to_embd = true;
        m.output_bytes = satAdd(m.token_embd_bytes, 16 * KiB);
        const Plan p = planOrFail(m, snapshotFromSizes({}, 64 * GiB, false));
        // Every weight once (weightBytes counts output_bytes, so the duplicate comes off).
        QCOMPARE(p.rungs[0].totals.weights, m.weightBytes() - m.token_embd_bytes);
    }

    void liveMemoryNarrowsTheWindowButNeverBelowTheFloorOrIntoSpill() {
        HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        // Other programs hold 5 GiB: live usable = 19 - 2.16 = 16.84 GiB -> 64K (7.23 weights + 8
        // KV + ~0.7 compute and overhead = 15.95 GiB) fits, 96K (~19.98 GiB) does not.
        hw.gpus[0].free_bytes = 19 * GiB;
        const Plan p = planOrFail(llama8bLike(), hw);
        QCOMPARE(p.decision.context, 65536u);
        QVERIFY(!p.decision.spilled);
        QVERIFY(p.decision.reasons.back().find(
                    "fits beside other programs' GPU memory (96K would not)") != std::string::npos);
        // Almost nothing free: the floor is held resident instead of spilling on a live reading.
        hw.gpus[0].free_bytes = 3 * GiB;
        const Plan q = planOrFail(llama8bLike(), hw);
        QCOMPARE(q.decision.context, 65536u);
        QVERIFY(!q.decision.spilled);
        QVERIFY(q.decision.reasons.back().find("other programs hold most of the GPU memory") !=
                std::string::npos);
    }

    void anExplicitContextIsPlannedAsAnExtraRungWithLlamaCppPadding() {
        PlanOptions o;
        o.context = 100000;
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        QCOMPARE(p.rungs.size(), size_t{4});
        const Rung& r = p.rungs[p.decision.rung_index];
        QCOMPARE(r.requested_context, 100000u);
        QCOMPARE(r.context, 100096u); // pad256(100000)
        QVERIFY(!r.on_ladder);
        QCOMPARE(p.launch->ctx_size, 100000u);
        const auto args = llamaServerArgs(*p.launch);
        QCOMPARE(args[0], std::string("-c"));
        QCOMPARE(args[1], std::string("100000"));
    }

    void contextsBeyondTheTrainedContextAreRefusedWithTheReason() {
        PlanOptions o;
        o.context = 262144;
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({}, 1024 * GiB, false), o);
        const Rung& r = p.rungs.back();
        QCOMPARE(r.verdict, Verdict::Refused);
        QCOMPARE(r.refusal->code, RefusalCode::ContextTooLong);
        // Tokens in token fields: 262144 asked, 131072 trained; no byte budget was exceeded.
        QCOMPARE(r.refusal->needed_tokens, std::uint64_t{262144});
        QCOMPARE(r.refusal->available_tokens, std::uint64_t{131072});
        QCOMPARE(r.refusal->needed_bytes, Bytes{0});
        QCOMPARE(r.refusal->shortfall_bytes, SignedBytes{0});
    }

    // No CUDA or Metal device was measured (docs/accuracy*.md cover CPU, Vulkan and RPC), so a
    // plan for one says its device figures are not measured there, until `verify` stored a
    // calibration for that backend.
    void aPlanForAnUnmeasuredBackendSaysSoUntilVerified_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("calibrated");
        QTest::addColumn<bool>("noted");
        QTest::newRow("cuda") << QStringLiteral("cuda") << QString() << true;
        QTest::newRow("metal") << QStringLiteral("metal") << QString() << true;
        QTest::newRow("vulkan, measured") << QStringLiteral("vulkan") << QString() << false;
        QTest::newRow("cpu only") << QString() << QString() << false;
        QTest::newRow("cuda, verified")
            << QStringLiteral("cuda") << QStringLiteral("cuda") << false;
        QTest::newRow("cuda, verified on vulkan")
            << QStringLiteral("cuda") << QStringLiteral("vulkan") << true;
    }
    void aPlanForAnUnmeasuredBackendSaysSoUntilVerified() {
        QFETCH(QString, backend);
        QFETCH(QString, calibrated);
        QFETCH(bool, noted);
        HardwareSnapshot hw = backend.isEmpty() ? snapshotFromSizes({}, 64 * GiB, false)
                                                : snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        for (auto& g : hw.gpus)
            g.backend = backend.toStdString();
        if (!calibrated.isEmpty()) {
            Calibration c;
            c.backend = calibrated.toStdString();
            hw.calibration = c;
        }
        const Plan p = planOrFail(llama8bLike(), hw);
        const bool found = std::any_of(p.notes.begin(), p.notes.end(), [](const auto& n) {
            return n.find("not measured on this backend") != std::string::npos;
        });
        QCOMPARE(found, noted);
    }

    // llama.cpp drafts with nextn blocks only through an architecture's MTP graph
    // (LlamaProfile::mtp_graph_archs): the same shape declared as llama plans without MTP and
    // says why, in both builds.
    void nextnBlocksOfAnArchitectureWithoutAnMtpGraphAreNotDrafted_data() {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<bool>("drafts");
        QTest::newRow("glm4moe drafts") << QStringLiteral("glm4moe") << true;
        QTest::newRow("qwen35 drafts") << QStringLiteral("qwen35") << true;
        QTest::newRow("llama does not") << QStringLiteral("llama") << false;
        QTest::newRow("qwen4exp does not") << QStringLiteral("qwen4exp") << false;
    }
    void nextnBlocksOfAnArchitectureWithoutAnMtpGraphAreNotDrafted() {
        QFETCH(QString, arch);
        QFETCH(bool, drafts);
        ModelShape m = llama8bLike();
        LayerShape mtp = m.layers.back();
        mtp.is_mtp = true;
        m.layers.push_back(mtp);
        m.n_mtp_layers = 1;
        m.architecture = arch.toStdString();
        for (LlamaVersion v : allLlamaVersions()) {
            QCOMPARE(mtpDrafts(m, v), drafts);
            PlanOptions o;
            o.llama_version = v;
            const Plan p = planOrFail(m, snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
            QCOMPARE(p.mtp, drafts);
            const std::string why = "builds no MTP draft graph for " + m.architecture;
            const bool noted = std::any_of(p.notes.begin(), p.notes.end(), [&](const auto& n) {
                return n.find(why) != std::string::npos;
            });
            QCOMPARE(noted, !drafts);
            QCOMPARE(p.launch && p.launch->spec_draft_mtp, drafts);
        }
    }

    void mtpModelsChooseLeanWhenStackedCostsWindowOrSpill() {
        const ModelShape m = llama8bMtpLike();
        const Plan p = planOrFail(m, snapshotFromSizes({24 * GiB}, 64 * GiB, false));
        QVERIFY(p.mtp);
        QCOMPARE(p.other_posture_rungs.size(), p.rungs.size());
        // The nextn block stays in the main cache and the unfiltered draft context caches every
        // layer again: 64K needs 8 GiB + 8 GiB of f16 KV (+ 33 x 128 KiB x 64K for the 33rd block)
        // plus 7.4 GiB of weights > 21.84 GiB usable, so both postures spill at the floor.
        QCOMPARE(p.rungs[0].verdict, Verdict::Spilled);
        QCOMPARE(p.other_posture_rungs[0].verdict, Verdict::Spilled);
        // Equal windows, stacked spilled -> lean (Hermes plan_launch), which keeps ub 512: no -ub.
        QCOMPARE(p.decision.posture, Posture::Lean);
        QCOMPARE(p.decision.context, 65536u);
        // Stacked's 2048-token ubatch costs more compute: its logits alone are 2048 x 128256 x 4.
        QVERIFY(p.other_posture_rungs[0].totals.compute > p.rungs[0].totals.compute);
        QVERIFY(p.launch->spec_draft_mtp);
        QVERIFY(!p.launch->n_ubatch.has_value());
    }

    // The plan carries the growth decision of its launch window, which the CLI, the JSON and the
    // window all show: below the trained context a session grows to the next rung the plan
    // priced, re-fitted with that rung's total against VRAM + RAM; at the trained context it
    // stays (compress-default); a refused plan has no decision.
    void thePlanCarriesItsLaunchWindowsGrowth() {
        PlanOptions o;
        o.context = 8192;
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        QVERIFY(p.growth.has_value());
        QCOMPARE(p.growth->action, std::string("grow"));
        QCOMPARE(p.growth->window, 8192u);
        // 85 % of 8192 = 6963.2, so the session asks at 6964 tokens.
        QCOMPARE(p.growth->occupancy_tokens, std::uint64_t{6964});
        QVERIFY(p.growth->next_window && *p.growth->next_window > 8192u);
        const auto next = std::find_if(p.rungs.begin(), p.rungs.end(), [&](const Rung& r) {
            return r.requested_context == *p.growth->next_window;
        });
        QVERIFY(next != p.rungs.end());
        QCOMPARE(p.growth->needed_bytes, next->totals.total());
        QCOMPARE(p.growth->available_bytes, p.budget.vramUsable() + p.budget.ram_usable);

        o.context = 0; // the trained context
        const Plan native =
            planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        QVERIFY(native.growth.has_value());
        QCOMPARE(native.growth->action, std::string("compress-default"));
        QVERIFY(!native.growth->next_window);

        const Plan refused =
            planOrFail(llama8bLike(), snapshotFromSizes({1 * GiB}, 2 * GiB, false));
        QVERIFY(refused.decision.refused);
        QVERIFY(!refused.growth.has_value());
    }

    void quantizedVCacheWithoutFlashAttentionIsABadArgument() {
        PlanOptions o;
        o.cache_type_v = GgmlType::Q8_0;
        o.flash_attn = FlashAttn::Off;
        auto p = makePlan(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        QVERIFY(!p);
        QVERIFY(p.error().message.find("requires flash attention") != std::string::npos);
    }

    void mlaModelsNeedEqualKAndVCacheTypes() {
        ModelShape m = llama8bLike();
        m.layers[0].attention = AttentionKind::Mla;
        PlanOptions o;
        o.cache_type_k = GgmlType::Q8_0;
        auto p = makePlan(m, snapshotFromSizes({24 * GiB}, 64 * GiB, false), o);
        QVERIFY(!p);
        QVERIFY(p.error().message.find("same K and V cache type") != std::string::npos);
    }

    void everyGpuRungCarriesAKvSpillPlanInPagesOf256Tokens() {
        const Plan p = planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB}, 64 * GiB, false));
        // 128K: KV is 16 GiB = 131072 B per token; 512 pages of 256 tokens, 32 MiB each.
        const KvSpillPlan& k = p.rungs[2].kv_spill;
        QCOMPARE(k.page_bytes, Bytes{131072} * 256);
        QCOMPARE(k.total_pages, std::uint64_t{512});
        QCOMPARE(k.total_bytes, Bytes{16} * GiB);
        // Resident budget: usable 21.84 GiB minus every non-KV byte of the full offload; the
        // cache does not fit, so the remainder pages to CPU RAM over PCIe (discrete card).
        QCOMPARE(k.mode, KvSpillMode::Spill);
        QCOMPARE(k.tier, KvSpillTier::Cpu);
        QCOMPARE(k.restore_class, KvRestoreClass::CpuPcie);
        QCOMPARE(k.resident_pages + k.spill_pages, k.total_pages);
        // 96K fits with its KV resident.
        QCOMPARE(p.rungs[1].kv_spill.mode, KvSpillMode::Resident);
    }

    void moeRungsCarryTheExpertCacheSplit() {
        const Plan p = planOrFail(moeShape(), snapshotFromSizes({8 * GiB}, 64 * GiB, false));
        const ExpertSplit& e = p.rungs[0].expert_split;
        QVERIFY(e.applicable);
        // 8 MoE blocks x 64 experts = 512 slots for full residency; 1 GiB / 64 = 16 MiB per expert.
        QCOMPARE(e.total_experts, std::uint64_t{512});
        QCOMPARE(e.bytes_per_expert, Bytes{16} * MiB);
        QVERIFY(e.expert_slots < e.total_experts);
        QVERIFY(e.expert_slots >= 64);
    }

    void aCardSmallerThanItsMarginHasANegativeBudgetNotAWrappedOne() {
        const MemoryBudget b = capacityBudget(snapshotFromSizes({1 * GiB}, 8 * GiB, false), 0);
        // 1 GiB - 2 GiB margin = -1 GiB.
        QCOMPARE(b.devices[0].usable, -static_cast<SignedBytes>(GiB));
    }

    // llama.cpp runs a model from system RAM on a card that holds nothing but its own context
    // (-ngl 0): the runtime is allocated on every GPU whatever the placement. A card that is all
    // planning margin gives up that much of the margin, and the plan is made, not refused.
    void aCardThatIsAllMarginRunsTheModelFromRamWithOnlyTheRuntimeOnIt_data() {
        QTest::addColumn<Bytes>("card");
        // 1 GiB: usable 1 - 2 = -1 GiB; 2 GiB: 0; 2 GiB + 200 MiB: 200 MiB. Each is below the
        // 400 MiB CUDA runtime (BackendTraits::runtime_overhead of cudaBackend()), and each card
        // holds it.
        QTest::newRow("1 GiB") << Bytes{GiB};
        QTest::newRow("2 GiB") << Bytes{2 * GiB};
        QTest::newRow("2 GiB + 200 MiB") << Bytes{2 * GiB + 200 * MiB};
    }
    void aCardThatIsAllMarginRunsTheModelFromRamWithOnlyTheRuntimeOnIt() {
        QFETCH(Bytes, card);
        // moeShape: 8 x (50 MiB + 1 GiB) + 100 MiB output = 8.49 GiB of weights, f16 KV of one
        // 64-wide head: 8 x 64 x 2 x 2 = 2 KiB per token, 128 MiB at the 64K floor; all of it
        // fits 64 GiB of RAM.
        const Plan p = planOrFail(moeShape(), snapshotFromSizes({card}, 64 * GiB, false));
        QCOMPARE(p.budget.devices[0].usable, toSigned(cudaBackend().runtime_overhead));
        QVERIFY(p.budget.devices[0].runtime_only);
        QVERIFY(!p.decision.refused);
        const Rung& r = p.rungs[p.decision.rung_index];
        QCOMPARE(r.verdict, Verdict::Spilled);
        QCOMPARE(r.placement.gpu_layers, 0u);
        // The card holds the runtime and nothing else: 400 MiB of 400 MiB.
        QCOMPARE(r.devices[0].bytes, cudaBackend().runtime_overhead);
        QCOMPARE(r.devices[0].budget_bytes, toSigned(cudaBackend().runtime_overhead));
        QCOMPARE(r.devices[0].terms.overhead, cudaBackend().runtime_overhead);
        QVERIFY(p.launch.has_value());
        QVERIFY(p.launch->gpu_layers.has_value());
        QCOMPARE(*p.launch->gpu_layers, GpuLayers::of(0));
        QVERIFY(std::any_of(p.notes.begin(), p.notes.end(), [](const std::string& n) {
            return n.find("is nearly all planning margin") != std::string::npos;
        }));
    }

    void aCardSmallerThanLlamaCppsOwnRuntimeIsRefusedAsTooSmall() {
        // 100 B: usable 100 - 2 GiB < 0, and the card cannot hold the 400 MiB runtime at all, so
        // its budget stays (reported as 0 room) and every rung is refused naming the card: needs
        // 400 MiB, has 0, 400 MiB short — not "needs 8.6 GiB of the 64 GiB usable".
        const Plan p = planOrFail(moeShape(), snapshotFromSizes({100}, 64 * GiB, false));
        QVERIFY(p.decision.refused);
        QVERIFY(!p.budget.devices[0].runtime_only);
        for (const Rung& r : p.rungs) {
            QVERIFY(r.refusal.has_value());
            QCOMPARE(r.refusal->code, RefusalCode::DeviceTooSmall);
            QCOMPARE(r.refusal->budget, BudgetName::Vram);
            QCOMPARE(r.refusal->device, 0);
            QCOMPARE(r.refusal->needed_bytes, cudaBackend().runtime_overhead);
            QCOMPARE(r.refusal->available_bytes, SignedBytes{0});
            QCOMPARE(r.refusal->shortfall_bytes, toSigned(cudaBackend().runtime_overhead));
            QVERIFY(r.refusal->message.find("is too small") != std::string::npos);
        }
        QVERIFY(std::any_of(p.notes.begin(), p.notes.end(), [](const std::string& n) {
            return n.find("is too small for llama.cpp") != std::string::npos;
        }));
    }

    void aSmallSecondCardHoldsItsRuntimeAndNoLayers() {
        // 24 GiB (usable 21.84 GiB) beside 2 GiB (all margin): llama8bLike's 7.23 GiB of weights
        // and 8 GiB of KV at 64K fit the first card; the second holds only its 400 MiB runtime.
        // Before, the second card's runtime refused every rung although the first had room.
        const Plan p =
            planOrFail(llama8bLike(), snapshotFromSizes({24 * GiB, 2 * GiB}, 64 * GiB, false));
        QVERIFY(!p.decision.refused);
        const Rung& r = p.rungs[p.decision.rung_index];
        QCOMPARE(r.verdict, Verdict::Resident);
        QCOMPARE(r.placement.device_layers[1], 0u);
        QCOMPARE(r.devices[1].bytes, cudaBackend().runtime_overhead);
        // -ts gives the second card nothing: 21.84 GiB = 22364 whole MiB, then 0.
        QCOMPARE(r.placement.tensor_split, (std::vector<double>{22364, 0}));
    }
};

QTEST_APPLESS_MAIN(TestPlanner)
#include "test_planner.moc"
