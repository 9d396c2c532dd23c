// A draft model for speculative decoding (-md): priced as llama-server gives it its own context at
// the target's n_ctx, booked beside the target on the devices, refused where llama.cpp refuses
// the pair, re-planned by its remedies, and carried by the launch.
#include "catalog.h"
#include "hardware_presets.h"
#include "launch/launch_config.h"
#include "planner.h"
#include "planner/fit_simulation.h"

#include <QtTest>

#include <algorithm>
#include <memory>

using namespace headroom;

namespace {

// The launched rung; these plans all launch.
const Rung& launched(const Plan& p) {
    const Rung* r = launchedRung(p);
    if (!r) qFatal("the plan of %s launches nothing", p.model.id.c_str());
    return *r;
}

} // namespace

class TestDraftModel : public QObject {
    Q_OBJECT

    Catalog m_catalog;
    HardwareSnapshot m_4090;

    ModelShape shape(const char* id) {
        auto s = m_catalog.shape(id);
        if (!s) qFatal("catalog model %s missing", id);
        return *s;
    }

    PlanOptions withDraft(const char* draft_id, std::uint32_t ctx) {
        PlanOptions o;
        o.context = ctx;
        DraftModel d;
        d.model = std::make_shared<const ModelShape>(shape(draft_id));
        o.draft = d;
        return o;
    }

    Plan plan(const char* id, const PlanOptions& o) {
        auto p = makePlan(shape(id), m_4090, o);
        if (!p) qFatal("plan of %s failed: %s", id, p.error().message.c_str());
        return *p;
    }

private slots:
    void initTestCase() {
        auto c = loadBuiltinCatalog();
        QVERIFY2(c.has_value(), c ? "" : c.error().message.c_str());
        m_catalog = std::move(*c);
        auto hw = presetSnapshot("rtx-4090");
        QVERIFY(hw.has_value());
        m_4090 = *hw;
    }

    // The case: Qwen3-32B with Qwen3-0.6B drafting on an RTX 4090 at 16K. The draft is
    // the 0.6B model planned alone at the target's n_ctx (common_speculative_init_result sets
    // cparams.n_ctx = llama_n_ctx(ctx_tgt)) with every layer on the card (-ngld unset: all),
    // less the runtime the target's context already set up.
    void theDraftIsTheSmallModelPlannedAloneAtTheTargetsContext() {
        const Plan p = plan("qwen3-32b", withDraft("qwen3-0.6b", 16384));
        const Rung& r = launched(p);
        QVERIFY(r.draft.has_value());
        QCOMPARE(r.draft->context, r.context);
        PlanOptions alone_o;
        alone_o.context = r.context;
        const Plan alone = plan("qwen3-0.6b", alone_o);
        const Rung& a = launched(alone);
        QCOMPARE(a.devices.size(), size_t(1));
        QCOMPARE(r.draft->gpu_layers, a.placement.gpu_layers); // 28 blocks + output = 29
        QCOMPARE(r.draft->gpu_layers, 29u);
        const Terms& dd = r.draft->devices.at(0);
        const Terms& ad = a.devices[0].terms;
        QCOMPARE(dd.weights, ad.weights);
        QCOMPARE(dd.kv_k, ad.kv_k);
        QCOMPARE(dd.kv_v, ad.kv_v);
        QCOMPARE(dd.compute, ad.compute);
        QCOMPARE(dd.overhead, Bytes{0});
        QVERIFY(ad.overhead > 0);
        QCOMPARE(r.draft->host.total(), a.host.total());
        // 16384 cells x 28 layers x 8 KV heads x 128 x 2 bytes (f16), for K and for V.
        QCOMPARE(dd.kv_k, Bytes{16384} * 28 * 8 * 128 * 2);
        // Booked beside the target: the card's draft term is the draft's bytes there, and the
        // rung's totals add the whole draft.
        QCOMPARE(r.devices[0].terms.draft, dd.total());
        QCOMPARE(r.host.draft, r.draft->host.total());
        QCOMPARE(r.totals.draft, r.draft->total());
        QCOMPARE(r.devices[0].bytes, r.devices[0].terms.total());
    }

    // The target's own terms are the target's alone, but for the drafted tokens it verifies:
    // llama-server reserves min(n_batch, np x (1 + n_max)) = 4 output rows instead of 1, which
    // only the compute buffer's logits part can see.
    void theTargetKeepsItsOwnTermsBesideTheDraft() {
        PlanOptions with = withDraft("qwen3-0.6b", 16384);
        with.pinned.gpu_layers = GpuLayers::of(40); // both placed alike, whatever fits
        PlanOptions without = with;
        without.draft.reset();
        // The plans outlive the rungs read from them.
        const Plan with_plan = plan("qwen3-32b", with);
        const Plan without_plan = plan("qwen3-32b", without);
        const Rung& w = launched(with_plan);
        const Rung& o = launched(without_plan);
        QCOMPARE(w.devices[0].terms.weights, o.devices[0].terms.weights);
        QCOMPARE(w.devices[0].terms.kv(), o.devices[0].terms.kv());
        QCOMPARE(w.host.weights, o.host.weights);
        QCOMPARE(w.totals.output, o.totals.output);
        QVERIFY(w.totals.compute >= o.totals.compute);
        QCOMPARE(o.totals.draft, Bytes{0});
        QCOMPARE(w.totals.total() - w.totals.draft - w.totals.compute,
                 o.totals.total() - o.totals.compute);
    }

    // -ngld 10: the draft's first 19 of its 29 layers stay in system RAM (llama_model's
    // i_gpu_start = n_layer + 1 - ngl), so part of its weights are there, and the launch says so.
    void theDraftsLayersAreWhereNgldPutsThem() {
        PlanOptions o = withDraft("qwen3-0.6b", 16384);
        o.draft->gpu_layers = GpuLayers::of(10);
        const Plan p = plan("qwen3-32b", o);
        const Rung& r = launched(p);
        QCOMPARE(r.draft->gpu_layers, 10u);
        QVERIFY(r.draft->host.weights > 0);
        QVERIFY(r.draft->host.kv() > 0);
        QVERIFY(p.launch.has_value());
        QCOMPARE(p.launch->draft_gpu_layers, GpuLayers::of(10));
    }

    // The launch: -md, --spec-type draft-simple (without it llama-server loads the draft and never
    // drafts), -ngld as priced and --spec-draft-n-max; and the argv reads back to the same
    // config.
    void theLaunchCarriesTheDraftFlagsAndReadsBack() {
        PlanOptions o = withDraft("qwen3-0.6b", 16384);
        o.draft->cache_type_k = o.draft->cache_type_v = GgmlType::Q8_0;
        const Plan p = plan("qwen3-32b", o);
        QVERIFY(p.launch.has_value());
        const LaunchConfig& c = *p.launch;
        QCOMPARE(c.draft_model, std::string("qwen3-0.6b.gguf"));
        QCOMPARE(c.draft_gpu_layers, GpuLayers::of(launched(p).draft->gpu_layers));
        QCOMPARE(c.draft_cache_type_k, std::optional<GgmlType>(GgmlType::Q8_0));
        QCOMPARE(c.spec_draft_n_max, 3u);
        const auto argv = llamaServerArgs(c);
        const auto at = std::find(argv.begin(), argv.end(), "--spec-type");
        QVERIFY(at != argv.end() && at + 1 != argv.end());
        QCOMPARE(*(at + 1), std::string("draft-simple"));
        auto back = parseLlamaServerArgs(argv);
        QVERIFY2(back.has_value(), back ? "" : back.error().message.c_str());
        QVERIFY(*back == c);
        // A draft flag without its -md is not a launch Headroom writes.
        QVERIFY(!parseLlamaServerArgs({"-c", "4096", "--spec-type", "draft-simple"}));
        QVERIFY(!parseLlamaServerArgs({"-c", "4096", "-md", "d.gguf"}));
    }

    // At 8K the 32B model alone runs resident on the card (18.4 GiB of weights + 2 GiB of KV +
    // compute + runtime, under its 21.8 GiB), and the draft's 0.4 GiB of weights and 0.9 GiB of
    // KV push it to spill. Dropping the draft fixes it, re-planned; a q8_0 draft cache saves
    // about half the draft's KV.
    void theDraftsRemediesAreReplanned() {
        const Plan p = plan("qwen3-32b", withDraft("qwen3-0.6b", 8192));
        const Rung& r = launched(p);
        QCOMPARE(r.verdict, Verdict::Spilled);
        const Remedy* drop = nullptr;
        const Remedy* q8 = nullptr;
        for (const Remedy& m : r.spill_remedies) {
            if (m.kind == RemedyKind::DropDraft) drop = &m;
            if (m.kind == RemedyKind::DraftCacheQ8) q8 = &m;
        }
        QVERIFY(drop && q8);
        QVERIFY(drop->fixes);
        QVERIFY(!drop->options.draft.has_value());
        auto after = makePlan(shape("qwen3-32b"), m_4090, drop->options);
        QVERIFY(after.has_value());
        QCOMPARE(launched(*after).verdict, Verdict::Resident);
        // The q8_0 draft cache, re-planned: q8_0 stores 34 bytes per 32 values against f16's
        // 64, so the draft's KV is 34/64 of what it was (each K and V row, 8 heads x 128 = 1024
        // values, is a whole number of blocks).
        QCOMPARE(q8->options.draft->cache_type_k, GgmlType::Q8_0);
        QCOMPARE(q8->options.draft->cache_type_v, GgmlType::Q8_0);
        auto smaller = makePlan(shape("qwen3-32b"), m_4090, q8->options);
        QVERIFY(smaller.has_value());
        const Bytes kv = r.draft->devices[0].kv();
        QCOMPARE(launched(*smaller).draft->devices[0].kv(), kv / 64 * 34);
    }

    // llama.cpp v0.5.0's --fit measures the draft on the same devices at every context it tries
    // (common/fit.cpp common_fit_extra_model, added to each measurement): at -c 16K the 32B
    // model alone keeps more of its 65 layers on the card than beside the 2.2 GiB draft.
    void theFitSimulationCountsTheDraftOnTheDevices() {
        const PlanOptions with = withDraft("qwen3-0.6b", 16384);
        PlanOptions without = with;
        without.draft.reset();
        auto a = simulateFit(shape("qwen3-32b"), m_4090, with, {});
        auto b = simulateFit(shape("qwen3-32b"), m_4090, without, {});
        QVERIFY(a.has_value() && b.has_value());
        QCOMPARE(a->context, b->context); // -c is the user's: fit never changes it
        QVERIFY2(a->gpu_layers < b->gpu_layers,
                 qPrintable(QString("%1 vs %2").arg(a->gpu_layers).arg(b->gpu_layers)));
    }

    // The plan says how far the target's output buffer grows once it verifies drafts: from np
    // rows to min(n_batch, np x (1 + n_max)) rows of n_vocab f32 logits (server_output_limits).
    void theNoteSaysHowMuchTheOutputBufferGrowsWhileVerifying_data() {
        QTest::addColumn<std::uint32_t>("np");
        QTest::addColumn<std::uint32_t>("n_max");
        QTest::addColumn<std::uint32_t>("rows");
        QTest::newRow("llama.cpp's default") << 1u << 3u << 4u;    // 1 x (1 + 3)
        QTest::newRow("two sequences, 8 each") << 2u << 8u << 18u; // 2 x (1 + 8)
    }
    void theNoteSaysHowMuchTheOutputBufferGrowsWhileVerifying() {
        QFETCH(std::uint32_t, np);
        QFETCH(std::uint32_t, n_max);
        QFETCH(std::uint32_t, rows);
        PlanOptions o = withDraft("qwen3-0.6b", 16384);
        o.n_parallel = np;
        o.draft->n_max = n_max;
        const Plan p = plan("qwen3-32b", o);
        // Qwen3-32B's vocabulary: 151936 tokens, 4 bytes each per row.
        const std::string grows =
            "from " + std::to_string(np) + " to " + std::to_string(rows) +
            " rows of logits: " + formatBytes(Bytes{151936} * 4 * (rows - np));
        QCOMPARE(p.model.n_vocab, 151936u);
        QVERIFY2(
            std::any_of(p.notes.begin(), p.notes.end(),
                        [&](const std::string& n) { return n.find(grows) != std::string::npos; }),
            grows.c_str());
    }

    // What llama.cpp refuses about a pair, and what Headroom does not price, is refused before
    // anything is priced, naming the reason.
    void refusedPairs_data() {
        QTest::addColumn<QString>("draft");
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("says");
        // Llama 3.2 has 128256 tokens, Qwen3 151936: 23680 apart, llama.cpp allows 128.
        QTest::newRow("another tokenizer") << "llama-3.2-1b-instruct"
                                           << ""
                                           << "vocabulary";
        QTest::newRow("MTP on as well") << "qwen3-0.6b"
                                        << "mtp"
                                        << "--mtp on";
        QTest::newRow("llama.cpp v0.4.0") << "qwen3-0.6b"
                                          << "v0.4.0"
                                          << "v0.5.0";
        QTest::newRow("the library program") << "qwen3-0.6b"
                                             << "library"
                                             << "llama-server";
        QTest::newRow("tensor parallelism") << "qwen3-0.6b"
                                            << "tensor"
                                            << "-sm tensor";
        QTest::newRow("no draft tokens") << "qwen3-0.6b"
                                         << "n_max"
                                         << "--spec-draft-n-max";
    }
    void refusedPairs() {
        QFETCH(QString, draft);
        QFETCH(QString, change);
        QFETCH(QString, says);
        PlanOptions o = withDraft(draft.toStdString().c_str(), 16384);
        if (change == "mtp") o.mtp = MtpMode::On;
        if (change == "v0.4.0") o.llama_version = LlamaVersion::V0_4_0;
        if (change == "library") o.program = Program::Library;
        if (change == "tensor") o.pinned.split_mode = SplitMode::Tensor;
        if (change == "n_max") o.draft->n_max = 0;
        auto p = makePlan(shape("qwen3-32b"), m_4090, o);
        QVERIFY(!p.has_value());
        QCOMPARE(p.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(QString::fromStdString(p.error().message).contains(says),
                 p.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestDraftModel)
#include "test_draft_model.moc"
