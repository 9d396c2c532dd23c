// Other quants of a local GGUF's model in its folder (core/arch/gguf_siblings.h): found by their
// headers, priced with their own sizes, and offered by the smaller-quant remedy.
#include "arch/gguf_siblings.h"
#include "arch/shape_from_gguf.h"
#include "common/gguf_quants.h"
#include "hardware.h"
#include "planner.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;
using headroom::test::quantOfTestModel;

namespace {

// The same model at Q8_0, Q6_K and Q4_0 in `dir`, plus files that are not its quants.
struct Folder {
    QTemporaryDir dir;
    std::string q8, q6, q4;
    Bytes q6_bytes = 0, q4_bytes = 0;

    std::string path(const char* name) const {
        return QDir(dir.path()).filePath(name).toStdString();
    }

    bool write() {
        q8 = path("Sibling-2B-Q8_0.gguf");
        q6 = path("Sibling-2B-Q6_K.gguf");
        q4 = path("Sibling-2B-Q4_0.gguf");
        const GgufWriter w6 = quantOfTestModel(GgmlType::Q6_K, 18);
        const GgufWriter w4 = quantOfTestModel(GgmlType::Q4_0, 2);
        q6_bytes = w6.fileSize();
        q4_bytes = w4.fileSize();
        bool ok = quantOfTestModel(GgmlType::Q8_0, 7).write(q8).has_value() &&
                  w6.write(q6).has_value() && w4.write(q4).has_value();
        // Same dimensions, another model's name: a fine-tune, not a quant of this one.
        ok = ok && quantOfTestModel(GgmlType::Q4_0, 2, "Sibling Test 2B Finetune")
                       .write(path("Finetune-2B-Q4_0.gguf"))
                       .has_value();
        // A projector beside the model, and a file that is no GGUF at all.
        GgufWriter clip;
        clip.set("general.architecture", GgufValue::string("clip"));
        ok = ok && clip.write(path("mmproj-Sibling-2B-f16.gguf")).has_value();
        QFile broken(QString::fromStdString(path("broken.gguf")));
        ok = ok && broken.open(QIODevice::WriteOnly) && broken.write("GGUF\x03", 5) == 5;
        broken.close();
        // A quant one folder down is not beside the file.
        ok = ok && QDir(dir.path()).mkdir(QStringLiteral("sub")) &&
             quantOfTestModel(GgmlType::Q4_0, 2)
                 .write(QDir(dir.path()).filePath("sub/Sibling-2B-Q4_0.gguf").toStdString())
                 .has_value();
        return ok;
    }
};

} // namespace

class TestGgufSiblings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theOtherQuantsOfTheModelBesideTheFileAreFoundLargestFirst() {
        Folder f;
        QVERIFY(f.write());
        auto shape = shapeFromGgufFile(f.q8);
        QVERIFY2(shape.has_value(), shape ? "" : shape.error().message.c_str());
        QCOMPARE(shape->quant, std::string("Q8_0")); // general.file_type 7
        const auto siblings = ggufFolderSiblings(*shape, f.q8);
        // The Q6_K and Q4_0 files only: not the file itself, not the fine-tune (another
        // general.name), the projector, the broken file or the copy in sub/.
        QCOMPARE(siblings.size(), size_t(2));
        // general.file_type 18 is LLAMA_FTYPE_MOSTLY_Q6_K, 2 is LLAMA_FTYPE_MOSTLY_Q4_0; Q6_K
        // (210 bytes per 256 weights) is the larger file, so it comes first.
        QCOMPARE(siblings[0].quant, std::string("Q6_K"));
        QCOMPARE(siblings[1].quant, std::string("Q4_0"));
        // The sizes are the files' own (GgufWriter::fileSize: header + every tensor padded).
        QCOMPARE(siblings[0].file_bytes, f.q6_bytes);
        QCOMPARE(siblings[1].file_bytes, f.q4_bytes);
        QCOMPARE(siblings[0].ref, f.q6);
        QCOMPARE(siblings[1].ref, f.q4);
        for (const auto& s : siblings) {
            QVERIFY(s.shape);
            QCOMPARE(s.shape->file_bytes, s.file_bytes);
            QCOMPARE(s.shape->nLayer(), 8u); // the test model's 8 blocks (gguf_quants.h)
            QVERIFY(s.shape->siblings.empty());
        }
        // Its weights are its own. Block 0 holds 218,103,808 matrix weights and two 4096-wide
        // F32 norms (32,768 bytes): Q4_0 (18 bytes per 32 weights) 122,683,392 + 32,768, Q8_0
        // (34 bytes per 32) 231,735,296 + 32,768.
        QCOMPARE(siblings[1].shape->blockBytes(0), Bytes{122'716'160});
        QCOMPARE(shape->blockBytes(0), Bytes{231'768'064});
    }

    void aFileAloneOrARemoteNameHasNoSiblings() {
        QTemporaryDir dir;
        const std::string only = QDir(dir.path()).filePath("Only-Q8_0.gguf").toStdString();
        QVERIFY(quantOfTestModel(GgmlType::Q8_0, 7).write(only).has_value());
        auto shape = shapeFromGgufFile(only);
        QVERIFY(shape.has_value());
        QVERIFY(ggufFolderSiblings(*shape, only).empty());
        // A folder that does not exist is no error, just no siblings.
        QVERIFY(ggufFolderSiblings(*shape, "/nonexistent-headroom-dir/x.gguf").empty());
    }

    void theSmallerQuantRemedyPricesTheNextSmallerFileAndIsProven() {
        Folder f;
        QVERIFY(f.write());
        auto shape = shapeFromGgufFile(f.q8);
        QVERIFY(shape.has_value());
        addGgufFolderSiblings(*shape, f.q8);
        QCOMPARE(shape->siblings.size(), size_t(2));
        // A 4.5 GiB card keeps max(2 GiB, 9 %) = 2 GiB in reserve: 2.5 GiB usable. At 8K the
        // GPU holds the blocks and output (the weights less token_embd, which stays on the CPU),
        // 0.25 GiB of f16 KV (8 layers × 2 × 1024 × 2 bytes × 8192), 0.12 GiB of compute and
        // 0.39 GiB of runtime overhead: ≈ 2.61 GiB at Q8_0 (≈ 1.99 GiB file, 34 bytes per 32
        // weights) — it spills — and ≈ 2.19 GiB at Q6_K (≈ 1.53 GiB, 210 bytes per 256) — it is
        // resident.
        const HardwareSnapshot hw = snapshotFromSizes({4 * GiB + 512 * MiB}, 16 * GiB, false);
        PlanOptions o;
        o.context = 8192;
        auto plan = makePlan(*shape, hw, o);
        QVERIFY2(plan.has_value(), plan ? "" : plan.error().message.c_str());
        const Rung* rung = nullptr;
        for (const Rung& r : plan->rungs)
            if (r.requested_context == 8192) rung = &r;
        QVERIFY(rung);
        QVERIFY(rung->verdict != Verdict::Resident);
        const Remedy* smaller = nullptr;
        const auto& remedies = rung->refusal ? rung->refusal->remedies : rung->spill_remedies;
        for (const Remedy& m : remedies)
            if (m.kind == RemedyKind::SmallerQuant) smaller = &m;
        QVERIFY(smaller);
        // The next smaller file, Q6_K (not the smallest, Q4_0), named by its path.
        QCOMPARE(smaller->model_ref, f.q6);
        QVERIFY(QString::fromStdString(smaller->label).contains(QStringLiteral("Q6_K")));
        QVERIFY(smaller->fixes);
        // Proven: the Q6_K file itself, planned on the same machine, runs resident at 8K.
        auto q6 = shapeFromGgufFile(f.q6);
        QVERIFY(q6.has_value());
        auto again = makePlan(*q6, hw, o);
        QVERIFY(again.has_value());
        bool resident = false;
        for (const Rung& r : again->rungs)
            if (r.requested_context == 8192) resident = r.verdict == Verdict::Resident;
        QVERIFY(resident);
    }
};

QTEST_APPLESS_MAIN(TestGgufSiblings)
#include "test_gguf_siblings.moc"
