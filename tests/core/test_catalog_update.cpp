// A catalog update (`catalog --update`, File ▸ Catalog ▸ Update): it is checked whole before it
// is written, laid over the shipped catalog by id, refused when its schema is newer, and a broken
// installed update is an error naming the file and the way back. Plus the ranking order the
// catalog command lists models in (core/model_ranking.h).
#include "catalog_update.h"
#include "common/catalog_fixture.h"
#include "model_ranking.h"
#include "resources.h"

#include <QTemporaryDir>
#include <QtTest>

// (No raw string literals in this file: moc 6.4 stops parsing at them.)

#include <nlohmann/json.hpp>

#include <fstream>

using namespace headroom;
using nlohmann::json;

Q_DECLARE_METATYPE(headroom::ModelStanding)

namespace {

json entry(const std::string& id) {
    return headroom::test::tinyCatalogEntry(id);
}

std::string doc(const std::vector<json>& entries,
                const std::string& schema = "headroom.catalog/1") {
    return headroom::test::catalogDocument(entries, schema);
}

Catalog shipped() {
    auto c = loadBuiltinCatalog();
    if (!c) qFatal("builtin catalog: %s", c.error().message.c_str());
    return *c;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

ModelStanding standing(Verdict best, std::uint32_t largest, std::uint32_t resident, double tok_s,
                       double bpw) {
    ModelStanding s;
    s.best = best;
    s.largest = largest;
    s.largest_resident = resident;
    s.decode_tok_s = tok_s;
    s.bits_per_weight = bpw;
    return s;
}

} // namespace

class TestCatalogUpdate : public QObject {
    Q_OBJECT
    QTemporaryDir home_;

private slots:
    void init() {
        // Every case starts with no update installed, in a data home of its own.
        QVERIFY(home_.isValid());
        qputenv("XDG_DATA_HOME", home_.path().toUtf8());
        QVERIFY(removeCatalogUpdate().has_value());
    }

    void theUpdateLivesUnderXdgDataHomeAndARelativeOneIsIgnored() {
        QCOMPARE(catalogUpdatePath(), home_.path().toStdString() + "/headroom/catalog-update.json");
        const QByteArray saved = qgetenv("HOME");
        qputenv("XDG_DATA_HOME", "relative/dir");
        const QString home = home_.filePath(QStringLiteral("user"));
        qputenv("HOME", home.toUtf8());
        QCOMPARE(catalogUpdatePath(),
                 home.toStdString() + "/.local/share/headroom/catalog-update.json");
        qputenv("HOME", saved);
    }

    void withNoUpdateTheShippedCatalogIsInUse() {
        auto inUse = loadCatalogInUse();
        QVERIFY2(inUse.has_value(), inUse ? "" : inUse.error().message.c_str());
        QCOMPARE(inUse->update.path, std::string());
        QCOMPARE(inUse->catalog.size(), shipped().size());
    }

    void aNewIdIsAddedAndAShippedIdIsReplaced() {
        const Catalog base = shipped();
        const std::string shippedId = base.entries().front().id;
        json replacement = entry(shippedId);
        replacement["name"] = "Replaced by the update";
        auto r =
            installCatalogUpdate(doc({entry("brand-new-model"), replacement}), "upd.json", base);
        QVERIFY2(r.has_value(), r ? "" : r.error().message.c_str());
        QCOMPARE(r->models, std::size_t(2));
        QCOMPARE(r->added, std::size_t(1));
        QCOMPARE(r->replaced, std::size_t(1));

        auto inUse = loadCatalogInUse();
        QVERIFY2(inUse.has_value(), inUse ? "" : inUse.error().message.c_str());
        QCOMPARE(inUse->update.path, catalogUpdatePath());
        // Shipped entries plus the one new id; the replaced id is counted once.
        QCOMPARE(inUse->catalog.size(), base.size() + 1);
        QVERIFY(inUse->catalog.find("brand-new-model") != nullptr);
        QCOMPARE(inUse->catalog.find(shippedId)->name, std::string("Replaced by the update"));
    }

    void aRefusedDocumentLeavesTheEarlierUpdateInPlace_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("a newer schema")
            << QString::fromStdString(doc({entry("x")}, "headroom.catalog/2")) << "newer";
        QTest::newRow("a truncated download")
            << QString::fromStdString(doc({entry("x")}).substr(0, 40)) << "upd.json";
        QTest::newRow("no models") << QString::fromStdString(doc({})) << "no models";
        json bad = entry("x");
        bad["n_layer"] = -1;
        QTest::newRow("an invalid entry") << QString::fromStdString(doc({bad})) << "n_layer";
    }

    void aRefusedDocumentLeavesTheEarlierUpdateInPlace() {
        QFETCH(QString, text);
        QFETCH(QString, says);
        const Catalog base = shipped();
        const std::string earlier = doc({entry("earlier-model")});
        QVERIFY(installCatalogUpdate(earlier, "first.json", base).has_value());

        auto r = installCatalogUpdate(text.toStdString(), "upd.json", base);
        QVERIFY(!r.has_value());
        QVERIFY2(r.error().message.find(says.toStdString()) != std::string::npos,
                 r.error().message.c_str());
        QCOMPARE(readAll(catalogUpdatePath()), earlier);
    }

    void aBrokenInstalledUpdateIsAnErrorNamingItAndTheReset() {
        QVERIFY(installCatalogUpdate(doc({entry("m")}), "u.json", shipped()).has_value());
        {
            std::ofstream out(catalogUpdatePath(), std::ios::trunc);
            out << "{ \"schema\": \"headroom.catalog/1\", \"models\": [";
        }
        auto inUse = loadCatalogInUse();
        QVERIFY(!inUse.has_value());
        const std::string all = inUse.error().message + " " + inUse.error().details;
        QVERIFY2(all.find(catalogUpdatePath()) != std::string::npos, all.c_str());
        QVERIFY2(all.find("catalog --reset") != std::string::npos, all.c_str());
    }

    void resetRemovesTheUpdateOnceAndLeavesADirectoryAlone() {
        QVERIFY(installCatalogUpdate(doc({entry("m")}), "u.json", shipped()).has_value());
        auto first = removeCatalogUpdate();
        QVERIFY(first.has_value() && *first);
        auto second = removeCatalogUpdate();
        QVERIFY(second.has_value() && !*second);

        QVERIFY(QDir().mkpath(QString::fromStdString(catalogUpdatePath())));
        auto dir = removeCatalogUpdate();
        QVERIFY(!dir.has_value());
        QVERIFY(QFileInfo(QString::fromStdString(catalogUpdatePath())).isDir());
        // Installing over a directory is refused too, and the directory stays.
        QVERIFY(!installCatalogUpdate(doc({entry("m")}), "u.json", shipped()).has_value());
        QVERIFY(QDir(QString::fromStdString(catalogUpdatePath())).removeRecursively());
    }

    void rankingFollowsTheStatedOrder_data() {
        QTest::addColumn<ModelStanding>("a");
        QTest::addColumn<ModelStanding>("b");
        QTest::addColumn<bool>("aAbove");
        using V = Verdict;
        QTest::newRow("resident beats spilled even with a shorter context")
            << standing(V::Resident, 8192, 8192, 10, 4) << standing(V::Spilled, 131072, 0, 50, 8)
            << true;
        QTest::newRow("spilled beats refused")
            << standing(V::Spilled, 4096, 0, 1, 4) << standing(V::Refused, 0, 0, 0, 8) << true;
        QTest::newRow("the longer resident context wins at one verdict")
            << standing(V::Resident, 32768, 32768, 5, 4)
            << standing(V::Resident, 16384, 16384, 90, 8) << true;
        QTest::newRow("then the faster decode")
            << standing(V::Resident, 32768, 32768, 40, 4)
            << standing(V::Resident, 32768, 32768, 20, 8) << true;
        QTest::newRow("then more bits per weight")
            << standing(V::Resident, 32768, 32768, 40, 8.5)
            << standing(V::Resident, 32768, 32768, 40, 4.5) << true;
        QTest::newRow("equal standings rank neither above")
            << standing(V::Spilled, 4096, 0, 3, 4) << standing(V::Spilled, 4096, 0, 3, 4) << false;
    }

    void rankingFollowsTheStatedOrder() {
        QFETCH(ModelStanding, a);
        QFETCH(ModelStanding, b);
        QFETCH(bool, aAbove);
        QCOMPARE(ranksAbove(a, b), aAbove);
        // Strict weak order: never both ways.
        QVERIFY(!(ranksAbove(a, b) && ranksAbove(b, a)));
        if (aAbove) QVERIFY(!ranksAbove(b, a));
    }
};

QTEST_GUILESS_MAIN(TestCatalogUpdate)
#include "test_catalog_update.moc"
