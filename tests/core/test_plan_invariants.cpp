// Every catalog model × every hardware preset × every rung, as the GUI and the CLI show them:
// no byte figure wraps negative, every refusal names its reasons, every remedy marked as fixing a
// rung does fix it when the planner is re-run with it applied, and every launch exported for a
// rung reads back as the same LaunchConfig.
//
// The walk is the longest test (about 16 000 plans): ctest runs it as shards, each taking every
// n-th row of the two walks (HEADROOM_TEST_SHARD=k/n, tests/CMakeLists.txt), so the shards run in
// parallel and each stays inside the timeout under the sanitizers. Without the variable one run
// takes every row.
#include "catalog.h"
#include "hardware_presets.h"
#include "planner.h"

#include <QtTest>

using namespace headroom;

namespace {

// Far above any real figure (1 PiB): a byte count past it is an unsigned wrap-around.
constexpr Bytes kImplausible = Bytes{1} << 50;

// Which rows this run takes: HEADROOM_TEST_SHARD=k/n takes rows k, k+n, k+2n, …; unset, all.
struct Shard {
    int index = 0;
    int count = 1;
    bool takes(int row) const { return row % count == index; }
};

// nullopt when the variable is set but is not k/n with 0 <= k < n.
std::optional<Shard> shardFromEnvironment() {
    const QByteArray v = qgetenv("HEADROOM_TEST_SHARD");
    if (v.isEmpty()) return Shard{};
    const QList<QByteArray> parts = v.split('/');
    if (parts.size() != 2) return std::nullopt;
    bool ok_k = false, ok_n = false;
    const int k = parts[0].toInt(&ok_k), n = parts[1].toInt(&ok_n);
    if (!ok_k || !ok_n || n < 1 || k < 0 || k >= n) return std::nullopt;
    return Shard{k, n};
}

// A rung of `plan` asking for `requested` tokens, in the posture the plan chose; nullptr if none.
const Rung* rungAt(const Plan& plan, std::uint32_t requested) {
    for (const auto& r : plan.rungs)
        if (r.requested_context == requested) return &r;
    return nullptr;
}

} // namespace

class PlanInvariants : public QObject {
    Q_OBJECT

    Catalog m_catalog;
    std::vector<HardwarePreset> m_presets;
    Shard m_shard;
    int m_fixing_remedies = 0;
    int m_refusals = 0;
    int m_memory_refusals = 0;
    int m_grid_refusals = 0;

    // A memory refusal says what it needs and what its budget has, and the two agree with the
    // verdict: it needs more than there is, the shortfall is the difference, and the message
    // quotes the same two figures (a refusal "needs 21.7 GiB but only 64.00 GiB is usable" read
    // as its own contradiction). A refusal only for the trained context carries tokens instead.
    void checkNumbersAgree(const Refusal& f, const QString& at) {
        if (f.code == RefusalCode::ContextTooLong) return;
        ++m_memory_refusals;
        const QString numbers = at + QStringLiteral(" [%1] needs %2, has %3, short %4: %5")
                                         .arg(refusalCodeName(f.code))
                                         .arg(f.needed_bytes)
                                         .arg(f.available_bytes)
                                         .arg(f.shortfall_bytes)
                                         .arg(QString::fromStdString(f.message));
        QVERIFY2(toSigned(f.needed_bytes) > f.available_bytes, qPrintable(numbers));
        QVERIFY2(f.shortfall_bytes == toSigned(f.needed_bytes) - f.available_bytes,
                 qPrintable(numbers));
        // The OS-floor refusal words its numbers as what the plan would leave; an unread live
        // budget has none to quote.
        if (f.code == RefusalCode::OsFloor || f.code == RefusalCode::MemoryUnknown) return;
        QVERIFY2(f.message.find(formatBytes(f.needed_bytes)) != std::string::npos,
                 qPrintable(numbers));
        QVERIFY2(f.message.find(formatSignedBytes(f.available_bytes)) != std::string::npos,
                 qPrintable(numbers));
    }

    // Checks one plan's rungs; re-plans every fixing remedy. `what` names the case in failures.
    void checkPlan(const ModelShape& model, const HardwareSnapshot& hw, const Plan& plan,
                   const QString& what) {
        for (const Rung& r : plan.rungs) {
            const QString at = what + QStringLiteral(" @ %1").arg(r.requested_context);
            QVERIFY2(r.totals.total() < kImplausible, qPrintable(at + " total wraps"));
            QVERIFY2(r.host_bytes < kImplausible, qPrintable(at + " host bytes wrap"));
            for (const auto& d : r.devices)
                QVERIFY2(d.bytes < kImplausible, qPrintable(at + " device bytes wrap"));
            QCOMPARE(r.verdict == Verdict::Refused, r.refusal.has_value());
            if (r.refusal) {
                ++m_refusals;
                const Refusal& f = *r.refusal;
                QVERIFY2(f.available_bytes >= 0, qPrintable(at + " negative available"));
                QVERIFY2(f.shortfall_bytes >= 0, qPrintable(at + " negative shortfall"));
                checkNumbersAgree(f, at);
                QVERIFY2(!f.reasons.empty(), qPrintable(at + " refusal without reasons"));
                QVERIFY2(!f.message.empty(), qPrintable(at + " refusal without a message"));
                QCOMPARE(f.reasons.front().code, f.code);
                for (const auto& why : f.reasons)
                    QVERIFY2(!why.message.empty(), qPrintable(at + " reason without words"));
                // Past the trained context is a reason whenever the rung is past it.
                const bool past = r.requested_context > contextLimit(model, plan.options);
                const bool says_past =
                    std::any_of(f.reasons.begin(), f.reasons.end(), [](const BlockingReason& b) {
                        return b.code == RefusalCode::ContextTooLong;
                    });
                QCOMPARE(says_past, past);
            } else {
                auto launch = launchFor(plan, r);
                QVERIFY2(launch.has_value(), qPrintable(at + " runs but has no launch"));
                auto back = parseLlamaServerArgs(llamaServerArgs(*launch));
                QVERIFY2(back.has_value(),
                         qPrintable(at + " exported argv does not parse: " +
                                    QString::fromStdString(back ? "" : back.error().message)));
                QVERIFY2(*back == *launch, qPrintable(at + " exported argv reads back different"));
            }
            const std::vector<Remedy>& remedies =
                r.refusal ? r.refusal->remedies : r.spill_remedies;
            for (const Remedy& m : remedies) {
                QVERIFY2(m.fixes || !m.still_lacks.empty() || m.kind == RemedyKind::FreeGpuMemory,
                         qPrintable(at + " remedy neither fixes nor says what is left: " +
                                    QString::fromStdString(m.label)));
                if (!m.fixes) continue;
                ++m_fixing_remedies;
                // Applied exactly as a client would: its options, on its model (a smaller
                // quant's own shape), the rung asked for again.
                const ModelShape* applied = &model;
                if (!m.model_ref.empty()) {
                    applied = nullptr;
                    for (const auto& s : model.siblings)
                        if (s.ref == m.model_ref) applied = s.shape.get();
                    QVERIFY2(applied, qPrintable(at + " quant remedy names no sibling"));
                }
                auto again = makePlan(*applied, hw, m.options);
                QVERIFY2(again.has_value(), qPrintable(at + " remedy options do not plan"));
                // A shorter context moves the target (-c); every other remedy keeps it.
                const std::uint32_t target =
                    m.options.context && m.options.context != plan.options.context
                        ? *m.options.context
                        : r.requested_context;
                const Rung* same = rungAt(*again, target);
                QVERIFY2(same, qPrintable(at + " re-plan lost the rung: " +
                                          QString::fromStdString(m.label)));
                const bool ok = r.verdict == Verdict::Spilled ? same->verdict == Verdict::Resident
                                                              : same->verdict != Verdict::Refused;
                QVERIFY2(ok, qPrintable(at + " ✓ remedy does not fix it: " +
                                        QString::fromStdString(m.label)));
            }
        }
    }

private Q_SLOTS:
    void initTestCase() {
        auto c = loadBuiltinCatalog();
        QVERIFY2(c.has_value(), c ? "" : c.error().message.c_str());
        m_catalog = std::move(*c);
        auto p = loadBuiltinPresets();
        QVERIFY2(p.has_value(), p ? "" : p.error().message.c_str());
        m_presets = std::move(*p);
        const auto shard = shardFromEnvironment();
        QVERIFY2(shard.has_value(), "HEADROOM_TEST_SHARD is not k/n with 0 <= k < n");
        m_shard = *shard;
    }

    // The ladder (what the GUI opens with) and 128K asked for explicitly (past many models'
    // trained context, so memory and context both block) on every model and machine.
    void everyRungOfEveryModelOnEveryPresetKeepsItsPromises_data() {
        QTest::addColumn<int>("entry");
        QTest::addColumn<int>("quant");
        int row = 0;
        for (size_t i = 0; i < m_catalog.entries().size(); ++i) {
            const CatalogEntry& e = m_catalog.entries()[i];
            for (size_t q = 0; q < e.quants.size(); ++q)
                if (m_shard.takes(row++))
                    QTest::newRow((e.id + ":" + e.quants[q].name).c_str()) << int(i) << int(q);
        }
    }
    void everyRungOfEveryModelOnEveryPresetKeepsItsPromises() {
        QFETCH(int, entry);
        QFETCH(int, quant);
        const CatalogEntry& e = m_catalog.entries()[size_t(entry)];
        const ModelShape model = catalogShape(e, e.quants[size_t(quant)]);
        for (const HardwarePreset& preset : m_presets) {
            for (std::optional<std::uint32_t> ctx :
                 {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>{131072}}) {
                PlanOptions o;
                o.context = ctx;
                auto plan = makePlan(model, preset.hw, o);
                QVERIFY2(plan.has_value(), plan ? "" : plan.error().message.c_str());
                checkPlan(model, preset.hw, *plan,
                          QString::fromStdString(e.id + " on " + preset.id) +
                              (ctx ? QStringLiteral(" -c 131072") : QString()));
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    // The class of the 2 GiB card beside 64 GiB of RAM: every catalog model on a grid of
    // hardware sizes, from a card smaller than llama.cpp's own runtime (100 B) through cards that
    // are all planning margin (1, 2 GiB) to 24 GiB, alone, beside a small second card, and
    // beside 1 to 64 GiB of RAM; every refusal's numbers agree (checkNumbersAgree).
    void everyRefusalOnAGridOfMachineSizesNeedsMoreThanItsBudgetHas_data() {
        QTest::addColumn<int>("entry");
        for (size_t i = 0; i < m_catalog.entries().size(); ++i)
            if (m_shard.takes(static_cast<int>(i)))
                QTest::newRow(m_catalog.entries()[i].id.c_str()) << int(i);
    }
    void everyRefusalOnAGridOfMachineSizesNeedsMoreThanItsBudgetHas() {
        QFETCH(int, entry);
        const CatalogEntry& e = m_catalog.entries()[size_t(entry)];
        const ModelShape model = catalogShape(e, e.quants.front());
        const std::vector<std::vector<Bytes>> cards = {
            {100},     {GiB},      {2 * GiB},           {3 * GiB},
            {8 * GiB}, {24 * GiB}, {24 * GiB, 2 * GiB}, {2 * GiB, 2 * GiB}};
        for (const auto& vram : cards) {
            for (Bytes ram : {GiB, 16 * GiB, 64 * GiB}) {
                const HardwareSnapshot hw = snapshotFromSizes(vram, ram, false);
                auto plan = makePlan(model, hw, {});
                QVERIFY2(plan.has_value(), plan ? "" : plan.error().message.c_str());
                const int before = m_memory_refusals;
                QString what = QString::fromStdString(e.id) + " on";
                for (Bytes v : vram)
                    what += QStringLiteral(" %1 B").arg(v);
                checkPlan(model, hw, *plan, what + QStringLiteral(" + %1 B RAM").arg(ram));
                m_grid_refusals += m_memory_refusals - before;
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    void theWalkFoundRefusalsAndFixingRemedies() {
        // Guards the walk itself: with a shard's share of the catalog (a quarter: 100 rows) on
        // every preset some rungs must be refused and some remedies must fix, or the checks
        // above checked nothing.
        qInfo("%d refused rungs checked, %d fixing remedies re-planned", m_refusals,
              m_fixing_remedies);
        QVERIFY(m_refusals > 0);
        QVERIFY(m_fixing_remedies > 0);
        // The grid reaches memory refusals of every kind it is for (a card too small, RAM too
        // small beside a large card): none would mean its numbers were never checked.
        qInfo("%d memory refusals on the size grid", m_grid_refusals);
        QVERIFY(m_grid_refusals > 0);
    }

    // The case: Qwen3-32B on an RTX 4060 Ti 16 GB at 128K is blocked twice (KV memory
    // and the 40K trained context); q4_0 KV alone is not ✓, and a YaRN remedy is, and runs.
    void qwen3_32bAt128kOnA4060TiNamesBothReasonsAndAYarnRemedyThatRuns() {
        auto model = m_catalog.shape("qwen3-32b");
        QVERIFY(model.has_value());
        auto hw = presetSnapshot("rtx-4060-ti-16g");
        QVERIFY(hw.has_value());
        PlanOptions o;
        o.context = 131072;
        auto plan = makePlan(*model, *hw, o);
        QVERIFY(plan.has_value());
        const Rung* r = rungAt(*plan, 131072);
        QVERIFY(r && r->refusal);
        QVERIFY(r->refusal->reasons.size() >= 2);
        QCOMPARE(r->refusal->reasons.back().code, RefusalCode::ContextTooLong);
        const Remedy* q4 = nullptr;
        const Remedy* yarn = nullptr;
        for (const auto& m : r->refusal->remedies) {
            if (m.kind == RemedyKind::KvCacheQ4) q4 = &m;
            if (m.kind == RemedyKind::RopeScalingYarn && m.fixes) yarn = &m;
        }
        QVERIFY(q4);
        QVERIFY(!q4->fixes);
        QVERIFY(q4->still_lacks.find("trained context") != std::string::npos);
        QVERIFY(yarn);
        // 131072 / 32768 = 4: the documented factor, from the documented original context.
        QCOMPARE(yarn->options.rope_scale, 4.0);
        QCOMPARE(yarn->options.yarn_orig_ctx, 32768u);
        auto again = makePlan(*model, *hw, yarn->options);
        QVERIFY(again.has_value());
        const Rung* now = rungAt(*again, 131072);
        QVERIFY(now);
        QVERIFY(now->verdict != Verdict::Refused);
        QVERIFY(again->launch);
        const auto args = llamaServerArgs(*launchFor(*again, *now));
        const std::vector<std::string> want = {"--rope-scaling",  "yarn", "--rope-scale", "4",
                                               "--yarn-orig-ctx", "32768"};
        QVERIFY(std::search(args.begin(), args.end(), want.begin(), want.end()) != args.end());
    }
};

QTEST_APPLESS_MAIN(PlanInvariants)
#include "test_plan_invariants.moc"
