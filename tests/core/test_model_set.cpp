// Several models priced together (planModelSet): each member on what the ones before it leave,
// the set's sums within the machine, contexts chosen so the set holds, and a set that cannot fit
// naming the member and why.
#include "catalog.h"
#include "hardware_presets.h"
#include "model_set.h"
#include "planner.h"

#include <QtTest>

using namespace headroom;

namespace {

// The launched rung; these plans all launch.
const Rung& launched(const Plan& p) {
    const Rung* r = launchedRung(p);
    if (!r) qFatal("the plan of %s launches nothing", p.model.id.c_str());
    return *r;
}

} // namespace

class TestModelSet : public QObject {
    Q_OBJECT

    Catalog m_catalog;

    SetMember member(const char* id, std::optional<std::uint32_t> ctx = std::nullopt) {
        auto shape = m_catalog.shape(id);
        if (!shape) qFatal("catalog model %s missing", id);
        SetMember m{*shape, {}};
        m.options.context = ctx;
        return m;
    }

private slots:
    void initTestCase() {
        auto c = loadBuiltinCatalog();
        QVERIFY2(c.has_value(), c ? "" : c.error().message.c_str());
        m_catalog = std::move(*c);
    }

    // The budget keeps out what the others hold: per device, and on unified memory the device
    // and host figures both come out of the one pool.
    void aBudgetKeepsOutWhatTheOtherModelsHold() {
        const HardwareSnapshot two = snapshotFromSizes({24 * GiB, 12 * GiB}, 64 * GiB, false);
        const MemoryBudget alone = capacityBudget(two, Bytes{0});
        const MemoryBudget beside = capacityBudget(two, BudgetReserve{0, {5 * GiB, GiB}, 3 * GiB});
        QCOMPARE(beside.devices[0].usable, alone.devices[0].usable - toSigned(5 * GiB));
        QCOMPARE(beside.devices[1].usable, alone.devices[1].usable - toSigned(GiB));
        QCOMPARE(beside.ram_usable, alone.ram_usable - toSigned(3 * GiB));
        const HardwareSnapshot uma = snapshotFromSizes({64 * GiB}, 64 * GiB, true);
        const MemoryBudget pool = capacityBudget(uma, Bytes{0});
        const MemoryBudget shared = capacityBudget(uma, BudgetReserve{0, {5 * GiB}, 3 * GiB});
        QCOMPARE(shared.devices[0].usable, pool.devices[0].usable - toSigned(8 * GiB));
    }

    // The issue's case: Qwen3-30B-A3B and gpt-oss-20b on an RTX 4090 at 16K. gpt-oss-20b alone
    // runs resident there, but beside Qwen3-30B-A3B (about 19 GiB of the card) it spills; the
    // set's sum per device stays within the card's budget.
    void theIssuesPairIsPricedTogetherOnTheCard() {
        auto hw = presetSnapshot("rtx-4090");
        QVERIFY(hw.has_value());
        auto set =
            planModelSet({member("qwen3-30b-a3b", 16384), member("gpt-oss-20b", 16384)}, *hw);
        QVERIFY2(set.has_value(), set ? "" : set.error().message.c_str());
        QVERIFY(set->fits);
        QCOMPARE(set->plans.size(), size_t(2));
        const Rung& first = launched(set->plans[0]);
        const Rung& second = launched(set->plans[1]);
        QCOMPARE(first.requested_context, 16384u);
        QCOMPARE(second.requested_context, 16384u);
        // The second member's card budget is the first's less what the first holds there.
        QCOMPARE(set->plans[1].budget.devices[0].usable,
                 set->plans[0].budget.devices[0].usable - toSigned(first.devices[0].bytes));
        QCOMPARE(set->plans[1].budget.ram_usable,
                 set->plans[0].budget.ram_usable - toSigned(first.host_bytes));
        QCOMPARE(set->devices[0].bytes, first.devices[0].bytes + second.devices[0].bytes);
        QCOMPARE(set->host.bytes, first.host_bytes + second.host_bytes);
        QVERIFY(toSigned(set->devices[0].bytes) <= set->devices[0].usable);
        QCOMPARE(second.verdict, Verdict::Spilled);
        PlanOptions o;
        o.context = 16384;
        auto alone = makePlan(set->plans[1].model, *hw, o);
        QVERIFY(alone.has_value());
        QCOMPARE(launched(*alone).verdict, Verdict::Resident);
    }

    // Without -c the set chooses: every member resident together, and no member can take the
    // next longer context with the set still resident (each raise was taken as far as it goes).
    void contextsAreTheLongestTheSetHoldsResident() {
        const HardwareSnapshot hw = snapshotFromSizes({16 * GiB}, 32 * GiB, false);
        const std::vector<SetMember> members = {member("qwen3-4b"), member("qwen3-8b")};
        auto set = planModelSet(members, hw);
        QVERIFY2(set.has_value(), set ? "" : set.error().message.c_str());
        QVERIFY(set->resident);
        QVERIFY(!set->notes.empty());
        for (size_t k = 0; k < members.size(); ++k) {
            const std::uint32_t ctx = launched(set->plans[k]).requested_context;
            const auto limit =
                static_cast<std::uint32_t>(contextLimit(members[k].model, members[k].options));
            if (ctx >= limit) continue;
            // The next context the set tries above ctx (4K, 8K, 16K, 32K, then the ladder),
            // capped at the model's limit.
            std::uint32_t next = limit;
            for (std::uint32_t c : {4096u, 8192u, 16384u, 32768u})
                if (c > ctx) {
                    next = std::min(next, c);
                    break;
                }
            std::vector<SetMember> raised = members;
            for (size_t j = 0; j < members.size(); ++j)
                raised[j].options.context = launched(set->plans[j]).requested_context;
            raised[k].options.context = next;
            auto again = planModelSet(raised, hw);
            QVERIFY(again.has_value());
            QVERIFY2(!again->resident,
                     qPrintable(QStringLiteral("member %1 could take %2").arg(k + 1).arg(next)));
        }
    }

    // Every set that fits keeps its sums within the machine, on every device and in RAM.
    void aSetThatFitsNeverPassesTheMachine_data() {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<QString>("preset");
        QTest::newRow("30b-a3b + gpt-oss on a 4090") << "qwen3-30b-a3b"
                                                     << "gpt-oss-20b"
                                                     << "rtx-4090";
        QTest::newRow("two 8B on a 4060 Ti") << "llama-3.1-8b-instruct"
                                             << "qwen3-8b"
                                             << "rtx-4060-ti-16g";
        QTest::newRow("70B + 8B on two 3090") << "llama-3.1-70b-instruct"
                                              << "llama-3.1-8b-instruct"
                                              << "rtx-3090-x2";
        QTest::newRow("gpt-oss + 4B on a Mac") << "gpt-oss-20b"
                                               << "qwen3-4b"
                                               << "m3-max-64g";
        QTest::newRow("two 4B on a CPU") << "qwen3-4b"
                                         << "llama-3.2-3b-instruct"
                                         << "cpu-ddr4-32g";
    }
    void aSetThatFitsNeverPassesTheMachine() {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(QString, preset);
        auto hw = presetSnapshot(preset.toStdString());
        QVERIFY2(hw.has_value(), qPrintable(preset));
        auto set = planModelSet({member(qPrintable(a)), member(qPrintable(b))}, *hw);
        QVERIFY2(set.has_value(), set ? "" : set.error().message.c_str());
        QVERIFY(set->fits);
        const MemoryBudget& machine = set->plans.front().budget;
        if (machine.uma) {
            QVERIFY(toSigned(set->devices[0].bytes + set->host.bytes) <= set->devices[0].usable);
        } else {
            for (const SetUse& d : set->devices)
                QVERIFY2(toSigned(d.bytes) <= d.usable, d.name.c_str());
            QVERIFY(toSigned(set->host.bytes) <= set->host.usable);
        }
    }

    // A 235B MoE cannot run in 16 GiB + 32 GiB at any context: the set names it and why.
    void aSetThatCannotFitNamesTheMemberAndWhy() {
        const HardwareSnapshot hw = snapshotFromSizes({16 * GiB}, 32 * GiB, false);
        auto set = planModelSet({member("qwen3-235b-a22b"), member("llama-3.1-8b-instruct")}, hw);
        QVERIFY(set.has_value());
        QVERIFY(!set->fits);
        QCOMPARE(set->blocked, 0);
        QVERIFY2(set->blocked_why.find("Qwen3 235B") != std::string::npos,
                 set->blocked_why.c_str());
        QVERIFY2(set->blocked_why.find("short") != std::string::npos, set->blocked_why.c_str());
    }

    void aSetIsTwoToEightModels() {
        const HardwareSnapshot hw = snapshotFromSizes({24 * GiB}, 64 * GiB, false);
        QVERIFY(!planModelSet({member("qwen3-4b")}, hw).has_value());
        QVERIFY(!planModelSet(std::vector<SetMember>(kMaxSetModels + 1, member("qwen3-4b")), hw)
                     .has_value());
    }
};

QTEST_APPLESS_MAIN(TestModelSet)
#include "test_model_set.moc"
