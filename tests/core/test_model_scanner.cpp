// The model scanner over fake stores in a temporary home: llama.cpp cache, Hugging Face hub
// cache with snapshot symlinks, LM Studio with a split model and a projector, an Ollama
// manifest with a projector layer, and a user folder holding a symlink loop and a broken file.
#include "gguf/gguf_writer.h"
#include "gguf/model_scanner.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace headroom;
namespace fs = std::filesystem;

namespace {

const std::string kModelHex(64, 'a');
const std::string kProjHex(64, 'b');

void writeModel(const fs::path& p, const std::string& arch, std::uint64_t rows = 8) {
    fs::create_directories(p.parent_path());
    GgufWriter w;
    w.set("general.architecture", GgufValue::string(arch));
    w.addTensor("w", {32, rows}, GgmlType::F32);
    QVERIFY(w.write(p.string(), true).has_value());
}

void writeSplitPart(const fs::path& stem, int i, int n) {
    GgufWriter w;
    if (i == 1) w.set("general.architecture", GgufValue::string("qwen3moe"));
    w.set("split.no", GgufValue::u16(static_cast<std::uint16_t>(i - 1)));
    w.set("split.count", GgufValue::u16(static_cast<std::uint16_t>(n)));
    w.addTensor("w" + std::to_string(i), {32, 4}, GgmlType::F32);
    fs::create_directories(stem.parent_path());
    QVERIFY(w.write(ggufSplitPath(stem.string(), i, n), true).has_value());
}

void writeText(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

struct FakeHome {
    QTemporaryDir tmp;
    fs::path home, extra;

    FakeHome() {
        home = fs::path(tmp.path().toStdString()) / "home";
        extra = fs::path(tmp.path().toStdString()) / "extra";
        writeModel(home / ".cache/llama.cpp/tiny-llama-Q8_0.gguf", "llama");

        // HF hub: the snapshot file is a symlink into blobs/ (no .gguf name there).
        const fs::path repo = home / ".cache/huggingface/hub/models--org--repo";
        writeModel(repo / "blobs/0123abcd", "gemma3");
        fs::create_directories(repo / "snapshots/rev1/sub");
        fs::create_symlink("../../../blobs/0123abcd", repo / "snapshots/rev1/sub/g-Q4_K_M.gguf");
        // A second revision linking the same blob must not be reported twice.
        fs::create_directories(repo / "snapshots/rev2/sub");
        fs::create_symlink("../../../blobs/0123abcd", repo / "snapshots/rev2/sub/g-Q4_K_M.gguf");

        const fs::path lms = home / ".lmstudio/models/pub/Big-GGUF";
        writeSplitPart(lms / "Big-Q4_K_M", 1, 2);
        writeSplitPart(lms / "Big-Q4_K_M", 2, 2);
        writeModel(lms / "mmproj-Big-f16.gguf", "clip");

        const fs::path om = home / ".ollama/models";
        writeModel(om / ("blobs/sha256-" + kModelHex), "llama");
        writeModel(om / ("blobs/sha256-" + kProjHex), "clip");
        writeText(om / "manifests/registry.ollama.ai/library/llama3.2/3b",
                  R"({"schemaVersion":2,"layers":[
                      {"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
                      kModelHex + R"(","size":1},
                      {"mediaType":"application/vnd.ollama.image.projector","digest":"sha256:)" +
                      kProjHex + R"(","size":1},
                      {"mediaType":"application/vnd.ollama.image.template","digest":"sha256:)" +
                      std::string(64, 'c') + R"(","size":1}]})");
        writeText(om / "manifests/registry.ollama.ai/someone/evil/latest",
                  R"({"layers":[{"mediaType":"application/vnd.ollama.image.model",
                                 "digest":"sha256:../../../../etc/passwd"}]})");

        // User folder: a loop back to itself and a file that is not GGUF.
        writeModel(extra / "mine/own.gguf", "phi3");
        fs::create_directory_symlink("..", extra / "mine/loop");
        writeText(extra / "broken.gguf", "this is not a model");
    }

    ModelScanOptions options() const {
        ModelScanOptions o;
        o.home = home.string();
        o.extra_folders = {extra.string()};
        return o;
    }
};

const ScannedModel* byName(const ModelScanResult& r, const std::string& name) {
    for (const auto& m : r.models)
        if (m.name == name) return &m;
    return nullptr;
}

} // namespace

class TestModelScanner : public QObject {
    Q_OBJECT
private slots:
    void rootsFollowTheEnvironmentLikeLlamaCppAndOllama() {
        ModelScanOptions o;
        o.home = "/h";
        auto roots = modelScanRoots(o);
        QCOMPARE(roots.size(), std::size_t{5});
        QCOMPARE(roots[0].path, std::string("/h/.cache/llama.cpp"));
        QCOMPARE(roots[1].path, std::string("/h/.cache/huggingface/hub"));
        QCOMPARE(roots[2].path, std::string("/h/.lmstudio/models"));
        QCOMPARE(roots[3].path, std::string("/h/.cache/lm-studio/models"));
        QCOMPARE(roots[4].path, std::string("/h/.ollama/models"));
        o.env = {{"LLAMA_CACHE", "/lc"}, {"HF_HOME", "/hf"}, {"OLLAMA_MODELS", "/om"}};
        roots = modelScanRoots(o);
        QCOMPARE(roots[0].path, std::string("/lc"));
        QCOMPARE(roots[1].path, std::string("/hf/hub"));
        QCOMPARE(roots[4].path, std::string("/om"));
        o.env = {{"XDG_CACHE_HOME", "/x"}, {"HF_HUB_CACHE", "/hub"}};
        roots = modelScanRoots(o);
        QCOMPARE(roots[0].path, std::string("/x/llama.cpp"));
        QCOMPARE(roots[1].path, std::string("/hub"));
    }

    void findsModelsInEveryStoreOnce() {
        FakeHome h;
        const auto r = scanForModels(h.options());
        QVERIFY(!r.cancelled);
        // llama.cpp 1 + HF 1 (two revisions, one blob) + LM Studio split + projector 2
        // + Ollama 1 + user folder 1 (the loop adds nothing) = 6
        QCOMPARE(r.models.size(), std::size_t{6});

        const auto* lc = byName(r, "tiny-llama-Q8_0");
        QVERIFY(lc);
        QCOMPARE(lc->source, ModelSource::LlamaCppCache);
        QCOMPARE(lc->model.architecture(), std::string("llama"));

        const auto* hf = byName(r, "org/repo/sub/g-Q4_K_M");
        QVERIFY(hf);
        QCOMPARE(hf->source, ModelSource::HuggingFace);
        QCOMPARE(hf->model.architecture(), std::string("gemma3"));

        const auto* split = byName(r, "pub/Big-GGUF/Big-Q4_K_M");
        QVERIFY(split);
        QVERIFY(split->model.complete);
        QCOMPARE(split->model.parts.size(), std::size_t{2});
        // two parts x 32 x 4 f32 = 2 x 512 bytes
        QCOMPARE(split->model.tensor_bytes, Bytes{1024});
        QCOMPARE(split->projector_paths.size(), std::size_t{1});
        QVERIFY(split->projector_paths[0].find("mmproj-Big-f16.gguf") != std::string::npos);
        const auto* proj = byName(r, "pub/Big-GGUF/mmproj-Big-f16");
        QVERIFY(proj && proj->is_projector);

        const auto* ol = byName(r, "llama3.2:3b");
        QVERIFY(ol);
        QCOMPARE(ol->source, ModelSource::Ollama);
        QVERIFY(ol->path.find("blobs/sha256-" + kModelHex) != std::string::npos);
        QCOMPARE(ol->projector_paths.size(), std::size_t{1});
        QVERIFY(ol->projector_paths[0].find(kProjHex) != std::string::npos);

        const auto* own = byName(r, "mine/own");
        QVERIFY(own);
        QCOMPARE(own->source, ModelSource::UserFolder);
    }

    void brokenFilesAndHostileManifestsAreIssuesNotFailures() {
        FakeHome h;
        const auto r = scanForModels(h.options());
        bool broken = false, evil = false;
        for (const auto& i : r.issues) {
            if (i.path.find("broken.gguf") != std::string::npos) {
                broken = true;
                QVERIFY(i.error.message.find("not a GGUF file") != std::string::npos);
            }
            if (i.path.find("evil") != std::string::npos) {
                evil = true;
                QVERIFY(i.error.message.find("malformed digest") != std::string::npos);
            }
        }
        QVERIFY(broken);
        QVERIFY(evil);
        QCOMPARE(r.issues.size(), std::size_t{2});
    }

    void missingSplitPartsAreNamedAndScanningGoesOn() {
        FakeHome h;
        fs::remove(
            ggufSplitPath((h.home / ".lmstudio/models/pub/Big-GGUF/Big-Q4_K_M").string(), 2, 2));
        const auto r = scanForModels(h.options());
        const auto* split = byName(r, "pub/Big-GGUF/Big-Q4_K_M");
        QVERIFY(split);
        QVERIFY(!split->model.complete);
        QCOMPARE(split->model.missing_parts.size(), std::size_t{1});
        QCOMPARE(r.models.size(), std::size_t{6});
    }

    void progressCountsFilesAndModels() {
        FakeHome h;
        std::uint64_t calls = 0, last_found = 0, last_seen = 0;
        const auto r = scanForModels(h.options(), [&](const ModelScanProgress& p) {
            ++calls;
            QVERIFY(p.files_seen >= last_seen); // never goes backwards
            last_seen = p.files_seen;
            last_found = p.models_found;
        });
        QVERIFY(calls >= r.models.size()); // at least one report per model found
        QCOMPARE(last_found, std::uint64_t{r.models.size()});
        QCOMPARE(last_seen, r.files_seen);
        QVERIFY(r.files_seen > 0);
    }

    void aCancelledScanStopsAndSaysSo() {
        FakeHome h;
        std::atomic<bool> cancel{false};
        const auto r = scanForModels(
            h.options(),
            [&](const ModelScanProgress& p) {
                if (p.models_found >= 1) cancel = true;
            },
            &cancel);
        QVERIFY(r.cancelled);
        QVERIFY(r.models.size() < 6);
    }

    void aMissingUserFolderIsReported() {
        ModelScanOptions o;
        o.extra_folders = {"/nonexistent/headroom-test"};
        const auto r = scanForModels(o);
        QVERIFY(r.models.empty());
        QCOMPARE(r.issues.size(), std::size_t{1});
        QCOMPARE(r.issues[0].error.code, ErrorCode::NotFound);
    }
};

QTEST_APPLESS_MAIN(TestModelScanner)
#include "test_model_scanner.moc"
