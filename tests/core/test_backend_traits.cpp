// One traits value per llama.cpp backend (core/backend/), and the tensor types llama-quantize
// gives a standard mixture (core/arch/quant_types.h), which the catalog splits a file by.
#include "arch/quant_types.h"
#include "backend/backend.h"

#include <QtTest>

#include <optional>
#include <set>
#include <string>

using namespace headroom;

Q_DECLARE_METATYPE(std::optional<headroom::Backend>)
Q_DECLARE_METATYPE(headroom::GgmlType)

class TestBackendTraits : public QObject {
    Q_OBJECT
private slots:
    void aBackendIsFoundByItsNameOrAnAliasInAnyCase_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<std::optional<Backend>>("backend");
        QTest::newRow("cuda") << "cuda" << std::optional(Backend::Cuda);
        QTest::newRow("CUDA") << "CUDA" << std::optional(Backend::Cuda);
        QTest::newRow("musa builds are CUDA's code") << "musa" << std::optional(Backend::Cuda);
        QTest::newRow("rocm") << "rocm" << std::optional(Backend::Hip);
        QTest::newRow("hip") << "hip" << std::optional(Backend::Hip);
        QTest::newRow("metal") << "metal" << std::optional(Backend::Metal);
        QTest::newRow("vulkan") << "Vulkan" << std::optional(Backend::Vulkan);
        QTest::newRow("sycl") << "sycl" << std::optional(Backend::Sycl);
        QTest::newRow("cpu") << "cpu" << std::optional(Backend::Cpu);
        QTest::newRow("rpc") << "rpc" << std::optional(Backend::Rpc);
        QTest::newRow("opencl is not priced") << "opencl" << std::optional<Backend>{};
        QTest::newRow("empty") << "" << std::optional<Backend>{};
        QTest::newRow("a prefix is not a name") << "cud" << std::optional<Backend>{};
    }
    void aBackendIsFoundByItsNameOrAnAliasInAnyCase() {
        QFETCH(QString, name);
        QFETCH(std::optional<Backend>, backend);
        QCOMPARE(backendFromName(name.toStdString()), backend);
    }

    void everyBackendHasOneNameAndItsOwnTraits() {
        std::set<std::string> names;
        for (const BackendTraits* t : allBackends()) {
            QVERIFY(names.insert(std::string(t->name)).second);
            QCOMPARE(&traitsOf(t->id), t);
            QCOMPARE(backendFromName(t->name), std::optional(t->id));
            QCOMPARE(std::string(backendName(t->id)), std::string(t->name));
            QVERIFY(!t->overhead_basis.empty());
        }
        QCOMPARE(names.size(), size_t{7});
        QCOMPARE(std::string(backendName(Backend::Auto)), std::string("auto"));
        // RPC is a device attribute, not a --backend.
        QCOMPARE(std::string(backendNamesForHelp()),
                 std::string("cpu, cuda, rocm, metal, vulkan, sycl"));
    }

    void rocmIsCudasCodeUnderItsOwnNames() {
        // ggml/include/ggml-cuda.h: GGML_CUDA_NAME "ROCm" for a HIP build.
        const BackendTraits& c = cudaBackend();
        const BackendTraits& h = hipBackend();
        QCOMPARE(std::string(h.buffer_name), std::string("ROCm"));
        QCOMPARE(std::string(h.host_buffer), std::string("ROCm_Host"));
        QCOMPARE(h.device.alignment, c.device.alignment);
        QCOMPARE(h.offload, c.offload);
        QCOMPARE(h.quantized_row_padding, c.quantized_row_padding);
        QCOMPARE(h.flash_attn_f16_copies, c.flash_attn_f16_copies);
        QCOMPARE(std::string(h.speed_class), std::string("rocm"));
    }

    void onlyVulkanChunksAndPadsItsBuffersAndOnlyMetalOffloadsMatrixProductsAlone() {
        for (const BackendTraits* t : allBackends()) {
            QCOMPARE(t->device.max_size > 0, t->id == Backend::Vulkan);
            QCOMPARE(t->host.alloc_pad > 0, t->id == Backend::Vulkan);
            QCOMPARE(t->offload == OffloadOps::MatMulOnly, t->id == Backend::Metal);
            QCOMPARE(t->reorders_graph, t->id == Backend::Vulkan);
        }
        // ggml_backend_vk_host_buffer_type_alloc_buffer: 32 bytes more; suballocation 1 GiB.
        QCOMPARE(vulkanBackend().host.alloc_pad, Bytes{32});
        QCOMPARE(vulkanBackend().device.max_size, 1024 * MiB);
        // ggml_backend_cuda_buffer_type_get_alignment.
        QCOMPARE(cudaBackend().device.alignment, Bytes{128});
    }

    void quantNamesMapToLlamaCppsMixtures_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("known");
        QTest::newRow("Q4_K_M") << "Q4_K_M" << true;
        QTest::newRow("lower case") << "q5_k_m" << true;
        QTest::newRow("MXFP4 files are MXFP4_MOE") << "MXFP4" << true;
        QTest::newRow("a dynamic quant keeps its own table") << "UD-Q4_K_XL" << false;
        QTest::newRow("IQ2_M is not modelled") << "IQ2_M" << false;
    }
    void quantNamesMapToLlamaCppsMixtures() {
        QFETCH(QString, name);
        QFETCH(bool, known);
        QCOMPARE(fileTypeFromQuantName(name.toStdString()).has_value(), known);
    }

    void tensorsTakeTheTypesLlamaQuantizeGivesThem_data() {
        QTest::addColumn<QString>("ftype");
        QTest::addColumn<int>("role");
        QTest::addColumn<int>("ne0");
        QTest::addColumn<int>("layer");
        QTest::addColumn<bool>("bank");
        QTest::addColumn<GgmlType>("expected");
        // A 32-block Llama (n_gqa 4): use_more_bits(i, 32) is i < 4 || i >= 28 ||
        // (i - 4) % 3 == 2, so blocks 0 and 6 take more bits and block 5 does not.
        const int ffn_down = static_cast<int>(TensorRole::FfnDown);
        const int attn_v = static_cast<int>(TensorRole::AttnV);
        const int attn_q = static_cast<int>(TensorRole::AttnQ);
        const int output = static_cast<int>(TensorRole::Output);
        const int embd = static_cast<int>(TensorRole::TokenEmbd);
        const int norm = static_cast<int>(TensorRole::Unquantized);
        QTest::newRow("Q4_K_M ffn_down, block 0: Q6_K")
            << "Q4_K_M" << ffn_down << 14336 << 0 << false << GgmlType::Q6_K;
        QTest::newRow("Q4_K_M ffn_down, block 5: Q4_K")
            << "Q4_K_M" << ffn_down << 14336 << 5 << false << GgmlType::Q4_K;
        QTest::newRow("Q4_K_M ffn_down, block 6: Q6_K")
            << "Q4_K_M" << ffn_down << 14336 << 6 << false << GgmlType::Q6_K;
        QTest::newRow("Q4_K_M attn_v, the first: Q6_K")
            << "Q4_K_M" << attn_v << 4096 << 0 << false << GgmlType::Q6_K;
        QTest::newRow("Q4_K_M attn_q: Q4_K")
            << "Q4_K_M" << attn_q << 4096 << 5 << false << GgmlType::Q4_K;
        QTest::newRow("Q4_K_M output: Q6_K")
            << "Q4_K_M" << output << 4096 << 0 << false << GgmlType::Q6_K;
        QTest::newRow("Q4_K_M token_embd: Q4_K")
            << "Q4_K_M" << embd << 4096 << 0 << false << GgmlType::Q4_K;
        QTest::newRow("Q3_K_M ffn_down, block 1 (< 32/16): Q5_K")
            << "Q3_K_M" << ffn_down << 14336 << 1 << false << GgmlType::Q5_K;
        QTest::newRow("Q8_0 output stays Q8_0")
            << "Q8_0" << output << 4096 << 0 << false << GgmlType::Q8_0;
        QTest::newRow("MXFP4 expert bank")
            << "MXFP4" << ffn_down << 2880 << 3 << true << GgmlType::MXFP4;
        QTest::newRow("MXFP4 attention: Q8_0")
            << "MXFP4" << attn_q << 2880 << 3 << false << GgmlType::Q8_0;
        QTest::newRow("MXFP4 output: Q8_0")
            << "MXFP4" << output << 2880 << 0 << false << GgmlType::Q8_0;
        // tensor_type_fallback: 2880 is not a multiple of Q4_K's 256 -> Q5_0 (32-blocks).
        QTest::newRow("a 2880-wide row cannot be Q4_K: Q5_0")
            << "Q4_K_M" << attn_q << 2880 << 5 << false << GgmlType::Q5_0;
        // Q6_K's fallback is Q8_0; Q6_K -> Q8_0 for a 2880-wide output head.
        QTest::newRow("a 2880-wide output head cannot be Q6_K: Q8_0")
            << "Q4_K_M" << output << 2880 << 0 << false << GgmlType::Q8_0;
        // 100 is no multiple of 32 either: F16.
        QTest::newRow("a 100-wide row falls back to F16")
            << "Q4_K_M" << attn_q << 100 << 0 << false << GgmlType::F16;
        QTest::newRow("norms are not quantized")
            << "Q4_K_M" << norm << 4096 << 0 << false << GgmlType::F32;
        QTest::newRow("an F16 file is F16")
            << "F16" << attn_q << 4096 << 0 << false << GgmlType::F16;
    }
    void tensorsTakeTheTypesLlamaQuantizeGivesThem() {
        QFETCH(QString, ftype);
        QFETCH(int, role);
        QFETCH(int, ne0);
        QFETCH(int, layer);
        QFETCH(bool, bank);
        QFETCH(GgmlType, expected);
        QuantModel m;
        m.n_layer = 32;
        m.n_gqa = 4;
        m.n_expert = bank ? 32 : 0;
        QuantTensor t;
        t.role = static_cast<TensorRole>(role);
        t.ne0 = ne0;
        t.layer = layer;
        t.expert_bank = bank;
        t.attn_v_index = layer;
        t.n_attn_v = 32;
        const auto f = fileTypeFromQuantName(ftype.toStdString());
        QVERIFY(f);
        QCOMPARE(quantizedType(*f, m, t), expected);
    }
};

QTEST_APPLESS_MAIN(TestBackendTraits)
#include "test_backend_traits.moc"
