// Speculative decoding's speed (policy/speculation.h): the step arithmetic, the acceptance span
// against the published runs it comes from, the range against runs from other sources
// (tests/speed/speculation_published.tsv), and the plan carrying it for a draft model and for an
// MTP head. The table of the held-out check goes to <build>/docs/speculation-accuracy.md.
#include "catalog.h"
#include "common/test_shapes.h"
#include "hardware_presets.h"
#include "planner.h"
#include "policy/speculation.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace headroom;
using namespace headroom::policy;
using namespace headroom::test;

namespace {

// One published run (see the file's header for each column's meaning).
struct Run {
    std::string source, hardware, target, draft;
    std::uint32_t n_max = 0;
    double base_tok_s = 0, spec_tok_s = 0, n_predict = 0, n_accept = 0;
    double accept() const { return acceptanceFromRun(n_predict, n_accept, n_max); }
    bool timed() const { return base_tok_s > 0 && spec_tok_s > 0; }
};

double number(const std::string& s) {
    if (s.empty()) return 0;
    try {
        return std::stod(s);
    } catch (...) {
        qFatal("not a number in the published runs: %s", s.c_str());
    }
}

std::vector<Run> loadRuns() {
    std::ifstream in(HEADROOM_SPECULATION_DATA);
    if (!in) qFatal("cannot read %s", HEADROOM_SPECULATION_DATA);
    std::vector<Run> runs;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        if (header) {
            header = false;
            continue;
        }
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, '\t'))
            f.push_back(cell);
        if (f.size() < 11) qFatal("a published run with %zu columns: %s", f.size(), line.c_str());
        Run r;
        r.source = f[0];
        r.hardware = f[2];
        r.target = f[4];
        r.draft = f[5];
        r.n_max = static_cast<std::uint32_t>(number(f[6]));
        r.base_tok_s = number(f[7]);
        r.spec_tok_s = number(f[8]);
        r.n_predict = number(f[9]);
        r.n_accept = number(f[10]);
        runs.push_back(r);
    }
    return runs;
}

// FNV-1a 64 of the source's address: a fixed split that never moves with the data's order.
bool heldOut(const std::string& source) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : source) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h % 3 == 0;
}

// Two places, outwards: how the constants are written.
double floor2(double v) {
    return std::floor(v * 100 + 1e-9) / 100;
}
double ceil2(double v) {
    return std::ceil(v * 100 - 1e-9) / 100;
}

} // namespace

class TestPolicySpeculation : public QObject {
    Q_OBJECT

    std::vector<Run> m_runs;

private slots:
    void initTestCase() {
        m_runs = loadRuns();
        QVERIFY(!m_runs.empty());
    }

    void aStepYieldsTheAcceptedPrefixAndOneTokenOfTheTargets_data() {
        QTest::addColumn<double>("accept");
        QTest::addColumn<std::uint32_t>("n_max");
        QTest::addColumn<double>("tokens");
        QTest::addColumn<double>("drafted");
        // 1 + 0.5 + 0.25 + 0.125 = 1.875 tokens; drafting stops at the first rejection: 1 + 0.5
        // + 0.25 = 1.75 drafted.
        QTest::newRow("half, 3") << 0.5 << 3u << 1.875 << 1.75;
        // Every token accepted: all n_max drafted, n_max + 1 yielded.
        QTest::newRow("all, 16") << 1.0 << 16u << 17.0 << 16.0;
        // None accepted: the target's own token only, and one drafted to learn it.
        QTest::newRow("none, 5") << 0.0 << 5u << 1.0 << 1.0;
        // 1 + 0.8 = 1.8; drafting one: 1.
        QTest::newRow("0.8, 1") << 0.8 << 1u << 1.8 << 1.0;
    }
    void aStepYieldsTheAcceptedPrefixAndOneTokenOfTheTargets() {
        QFETCH(double, accept);
        QFETCH(std::uint32_t, n_max);
        QFETCH(double, tokens);
        QFETCH(double, drafted);
        QVERIFY(std::abs(tokensPerStep(accept, n_max) - tokens) < 1e-12);
        QVERIFY(std::abs(draftedPerStep(accept, n_max) - drafted) < 1e-12);
    }

    void aRunsAcceptanceIsRecoveredFromItsCounts() {
        // At acceptance 0.7 and n_max 4 a step accepts 0.7 + 0.49 + 0.343 + 0.2401 = 1.7731
        // tokens, so 100 steps yield 277.31 tokens with 177.31 accepted.
        QVERIFY(std::abs(acceptanceFromRun(277.31, 177.31, 4) - 0.7) < 1e-9);
        // No step, or more accepted per step than can be drafted: not a run.
        QCOMPARE(acceptanceFromRun(10, 10, 4), 0.0);
        QCOMPARE(acceptanceFromRun(50, 45, 4), 0.0);
        QCOMPARE(acceptanceFromRun(50, 10, 0), 0.0);
    }

    void theRangeIsOrderedAndUnknownInputsGiveNone() {
        SpeculationWork w;
        // A 30 ms target step, 1 ms batched compute per token, a 3 ms draft token, 3 drafted.
        w.target_decode_s = 0.030;
        w.target_prefill_s = 0.001;
        w.draft_s = 0.003;
        w.n_max = 3;
        const SpeculationFigure f = estimateSpeculation(w);
        QVERIFY(f.speedup_low > 0);
        QVERIFY(f.speedup_low <= f.speedup && f.speedup <= f.speedup_high);
        // Low: accept 0.32, 3 drafted, verify 30 + 4 x 1 = 34 ms: a 43 ms step yields
        // 1 + 0.32 + 0.1024 + 0.032768 = 1.455168 tokens, 1.455168 x 30 / 43 = 1.0152x.
        QVERIFY(std::abs(f.speedup_low - 1.455168 * 30 / 43) < 1e-9);
        // High: accept 0.93, drafted 1 + 0.93 + 0.8649 = 2.7949, verify max(30, 3.7949) = 30 ms:
        // 1 + 0.93 + 0.8649 + 0.804357 = 3.599257 tokens in 30 + 3 x 2.7949 = 38.3847 ms.
        QVERIFY(std::abs(f.speedup_high - 3.599257 * 30 / (30 + 3 * 2.7949)) < 1e-9);
        QVERIFY(f.basis.find("ESTIMATE") != std::string::npos);

        for (double bad : {0.0, -1.0, std::nan(""), static_cast<double>(INFINITY)}) {
            SpeculationWork b = w;
            b.draft_s = bad;
            QCOMPARE(estimateSpeculation(b).speedup, 0.0);
        }
        SpeculationWork none = w;
        none.n_max = 0;
        QCOMPARE(estimateSpeculation(none).speedup, 0.0);
    }

    // kAcceptLow and kAcceptHigh are the least and the most acceptance of the runs of the
    // sources not held out, rounded outwards to the two places they are written with;
    // kAcceptTypical is their median.
    void theAcceptanceSpanIsTheSpanOfTheFitSources() {
        std::vector<double> accepts;
        std::set<std::string> sources;
        for (const Run& r : m_runs) {
            if (heldOut(r.source) || r.accept() <= 0) continue;
            accepts.push_back(r.accept());
            sources.insert(r.source);
        }
        QVERIFY(sources.size() >= 5);
        std::sort(accepts.begin(), accepts.end());
        QCOMPARE(kAcceptLow, floor2(accepts.front()));
        QCOMPARE(kAcceptHigh, ceil2(accepts.back()));
        // The typical acceptance is their median, to two places.
        const size_t n = accepts.size();
        const double median = n % 2 ? accepts[n / 2] : (accepts[n / 2 - 1] + accepts[n / 2]) / 2;
        QCOMPARE(kAcceptTypical, std::round(median * 100) / 100);
    }

    // The held-out sources' runs against the span: the table is the report (written to the
    // build tree, docs/speculation.md quotes it); the goal is that every held-out source has a
    // run inside, so no kind of pairing is outside what the range covers.
    void heldOutSourcesFallInsideTheAcceptanceSpan() {
        std::ostringstream table;
        table << "| held-out source | hardware | target / draft | n_max | acceptance | inside |\n"
                 "|---|---|---|---|---|---|\n";
        std::map<std::string, int> inside_by_source;
        int runs = 0, inside = 0;
        for (const Run& r : m_runs) {
            if (!heldOut(r.source) || r.accept() <= 0) continue;
            const bool in = r.accept() >= kAcceptLow && r.accept() <= kAcceptHigh;
            inside_by_source[r.source] += in;
            ++runs;
            inside += in;
            char buf[600];
            std::snprintf(buf, sizeof buf, "| %s | %s | %s / %s | %u | %.3f | %s |\n",
                          r.source.c_str(), r.hardware.c_str(), r.target.c_str(), r.draft.c_str(),
                          r.n_max, r.accept(), in ? "yes" : "no");
            table << buf;
        }
        QVERIFY2(inside_by_source.size() >= 3, "too few held-out sources with token counts");
        int sources_inside = 0;
        for (const auto& [source, n] : inside_by_source)
            sources_inside += n > 0;
        table << "\n"
              << inside << " of " << runs << " held-out runs and " << sources_inside << " of "
              << inside_by_source.size() << " held-out sources are inside " << kAcceptLow << "-"
              << kAcceptHigh << ".\n";
        const std::filesystem::path out =
            std::filesystem::path(HEADROOM_BIN_DIR).parent_path() / "docs";
        std::filesystem::create_directories(out);
        std::ofstream(out / "speculation-accuracy.md") << table.str();
        qInfo("%s", table.str().c_str());
        QCOMPARE(sources_inside, static_cast<int>(inside_by_source.size()));
    }

    // No run, of any source, is faster than its steps can yield: the measured speed-up is at
    // most the tokens a step yields at the run's own acceptance (or, without counts, the span's
    // top), which is the speed-up of free drafting and verifying.
    void noPublishedRunBeatsTheTokensItsStepsYield() {
        int checked = 0;
        for (const Run& r : m_runs) {
            if (!r.timed() || r.n_max == 0) continue;
            const double accept = r.accept() > 0 ? r.accept() : kAcceptHigh;
            const double measured = r.spec_tok_s / r.base_tok_s;
            QVERIFY2(measured <= tokensPerStep(accept, r.n_max),
                     (r.source + " " + std::to_string(measured)).c_str());
            ++checked;
        }
        QVERIFY(checked >= 10);
    }

    // The plan: a draft model's rung carries the speed with it, the target's own decode beside.
    void aDraftModelsRungCarriesTheSpeculativeSpeed() {
        auto catalog = loadBuiltinCatalog();
        QVERIFY(catalog.has_value());
        auto target = catalog->shape("qwen3-32b");
        auto draft = catalog->shape("qwen3-0.6b");
        QVERIFY(target && draft);
        auto hw = presetSnapshot("rtx-4090");
        QVERIFY(hw.has_value());
        PlanOptions o;
        o.context = 16384;
        DraftModel d;
        d.model = std::make_shared<const ModelShape>(*draft);
        o.draft = d;
        auto p = makePlan(*target, *hw, o);
        QVERIFY2(p.has_value(), p ? "" : p.error().message.c_str());
        QVERIFY(p->decision.rung_index >= 0);
        const Speed& s = p->rungs[static_cast<size_t>(p->decision.rung_index)].speed;
        const SpeculativeSpeed& sp = s.speculative;
        QCOMPARE(sp.drafter, std::string("qwen3-0.6b"));
        QCOMPARE(sp.n_max, 3u);                   // v0.5.0's --spec-draft-n-max default
        QVERIFY(sp.draft_tok_s > s.decode_tok_s); // a 0.6B decodes faster than a 32B
        QVERIFY(sp.speedup_low <= sp.speedup && sp.speedup <= sp.speedup_high);
        QVERIFY(std::abs(sp.decode_tok_s - s.decode_tok_s * sp.speedup) < 1e-9);
        QVERIFY(std::abs(sp.decode_low - s.decode_low * sp.speedup_low) < 1e-9);
        QVERIFY(std::abs(sp.decode_high - s.decode_high * sp.speedup_high) < 1e-9);

        // Without the draft nothing is drafted, and the target's figure is the same.
        PlanOptions plain = o;
        plain.draft.reset();
        auto q = makePlan(*target, *hw, plain);
        QVERIFY(q.has_value());
        QVERIFY(q->rungs[static_cast<size_t>(q->decision.rung_index)]
                    .speed.speculative.drafter.empty());
    }

    void anMtpHeadsRungCarriesItToo() {
        const ModelShape m = llama8bMtpLike();
        auto p = makePlan(m, snapshotFromSizes({24 * GiB}, 64 * GiB, false), PlanOptions{});
        QVERIFY(p.has_value() && p->mtp);
        const SpeculativeSpeed& sp =
            p->rungs[static_cast<size_t>(p->decision.rung_index)].speed.speculative;
        QCOMPARE(sp.drafter, std::string("mtp"));
        QCOMPARE(sp.n_max, 3u); // Headroom's MTP launch drafts 3 (--spec-draft-n-max 3)
        // One block and the output head of a 32-block model: at least 2 / 33 of a target step,
        // so the head drafts at most 16.5 times as fast as the target decodes.
        const Speed& s = p->rungs[static_cast<size_t>(p->decision.rung_index)].speed;
        QVERIFY(sp.draft_tok_s <= s.decode_tok_s * 33.0 / 2.0 + 1e-6);
        QVERIFY(sp.speedup > 1);
    }
};

QTEST_GUILESS_MAIN(TestPolicySpeculation)
#include "test_policy_speculation.moc"
