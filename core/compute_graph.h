// A graph skeleton and a replay of ggml-alloc: the compute buffer llama.cpp reserves is the
// high-water mark of ggml-alloc packing the reserved graph (llama.cpp v0.5.0 (de3ff815)
// ggml/src/ggml-alloc.c, ggml_gallocr_alloc_graph_impl), so pricing it exactly takes the graph's
// tensors in llama.cpp's build order (their shapes, types, which are views and which are inputs
// or outputs) and the allocator's rules. The Graph below records just that much of ggml's tensor
// model: each op's result shape, type and strides follow the ggml function it names (ggml/src/
// ggml.c), and expand() orders nodes the way ggml_build_forward_expand does (ggml_visit_parents:
// sources first, left to right, a tensor once; a tensor without an op is a leaf).
#pragma once

#include "units.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom::graph {

// The element types the reserved graphs hold in their compute buffer.
enum class Elem : std::uint8_t { F32, F16, I32, I64, I8 };

// The ggml ops the skeletons use; only whether an op may run in place (ggml-alloc.c,
// ggml_op_can_inplace) and whether it is a view changes what the allocator does.
enum class Op : std::uint8_t {
    None,      // a leaf: an input, or a tensor outside the graph (weights, caches)
    GetRows,   // ggml_get_rows
    RmsNorm,   // ggml_rms_norm (in place)
    Norm,      // ggml_norm
    Mul,       // ggml_mul (in place)
    Add,       // ggml_add (in place)
    Scale,     // ggml_scale (in place)
    Unary,     // ggml_silu, ggml_gelu, ggml_tanh, ... (in place)
    SoftMax,   // ggml_soft_max_ext (in place)
    Rope,      // ggml_rope_ext (in place)
    MulMat,    // ggml_mul_mat
    MulMatId,  // ggml_mul_mat_id
    Glu,       // ggml_swiglu_split, ggml_geglu_split
    Cont,      // ggml_cont
    Cpy,       // ggml_cpy (a view of its destination)
    Concat,    // ggml_concat
    Argsort,   // ggml_argsort / ggml_top_k
    SumRows,   // ggml_sum_rows
    Div,       // ggml_div (in place)
    Clamp,     // ggml_clamp (in place)
    AddId,     // ggml_add_id (in place)
    Repeat,    // ggml_repeat
    SsmConv,   // ggml_ssm_conv
    SsmScan,   // ggml_ssm_scan
    Sqr,       // ggml_sqr (in place)
    FlashAttn, // ggml_flash_attn_ext
    SetRows,   // ggml_set_rows (a view of the cache it writes)
    Reshape,   // ggml_reshape_* (view)
    View,      // ggml_view_* (view)
    Permute,   // ggml_permute / ggml_transpose (view)

    // Used by the Qwen3-Next and Gemma 3n skeletons.
    L2Norm,        // ggml_l2_norm
    GatedDeltaNet, // ggml_gated_delta_net
    Sub,           // ggml_sub (in place)
    Sqrt,          // ggml_sqrt (in place)
    Mean,          // ggml_mean
};

using Id = std::int32_t;
inline constexpr Id kNone = -1;

struct Tensor {
    Op op = Op::None;
    Elem type = Elem::F32;
    std::array<std::int64_t, 4> ne{1, 1, 1, 1};
    std::array<std::uint64_t, 4> nb{};
    Id view_src = kNone; // the root tensor a view's memory belongs to (ggml_new_tensor_impl)
    // Up to eight sources: ggml_ssm_scan reads seven, the most of any op the skeletons build
    // (ggml.h allows GGML_MAX_SRC, ten).
    std::array<Id, 8> src{kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone};
    bool input = false;    // ggml_set_input
    bool output = false;   // ggml_set_output
    bool external = false; // memory outside the compute buffer (weights, KV cache, their views)
    bool visited = false;  // ggml_build_forward_expand has added it
    // The block whose builder made it (Graph::setLayer): -1 the graph inputs and token rows, the
    // block count for the output layer. The scheduler places weights and caches by it.
    std::int32_t layer = -1;
    // What a copy of this tensor into another backend's compute buffer takes (a cache view's
    // ggml_nbytes); 0 = its own size.
    Bytes copy_bytes = 0;
    // A block's weighted norm, which llama.cpp pins to the block's backend when the scheduler
    // would otherwise run it with the previous block (SchedPlacement::pin_norms).
    bool layer_norm_pin = false;
    // The attention output without flash attention (build_attn_mha's "kqv_merged_cont"), which
    // llama.cpp runs on the CPU when the KV cache is (SchedPlacement::kv_on_host).
    bool kqv_out = false;
    // A weight of its own (Graph::ownWeight), in a weights buffer like the stand-in.
    bool weight = false;
    // The bytes of the small f32 weight an op other than a matrix product reads (a convolution
    // kernel, SSM A or D, a group norm's weight); 0: one row of ne[0] values (a norm, a bias).
    Bytes weight_bytes = 0;
    // What ggml-cuda's FLASH_ATTN_EXT allocation holds beyond its result: F16 copies of a
    // quantized K and V for the tile and MMA kernels (ggml_cuda_flash_attn_ext_get_alloc_size).
    // Counted only in a buffer whose type asks for it (BufferType::flash_attn_f16_copies).
    Bytes fa_f16_extra = 0;
    // A matmul of a block's FFN projections (ffn_up / ffn_gate / ffn_down, or the shared
    // expert's), whose weight a tensor override may put elsewhere (SchedPlacement::ffn_backend).
    bool ffn = false;
};

class Graph {
public:
    Graph();

    // A tensor outside the compute buffer (weights, cache tensors); one stands for all of them.
    Id weight() const { return weight_; }
    // A read of a cache tensor (a K or V view, recurrent states) of the current block: external
    // memory on the block's backend; `bytes` is what copying the view to another backend takes.
    Id cacheRead(Bytes bytes);
    // A weight of its own rather than the stand-in, read from the buffer of the block that reads
    // it: a block's tensor read more than once (copied to another backend once, tensor_id_copy),
    // or one every block reads, loaded once per buffer type holding blocks
    // (llama_model_loader::create_tensor with TENSOR_DUPLICATED: the rope factors); `bytes` is
    // its size.
    Id ownWeight(Bytes bytes);
    // Tags every tensor made from now on with block `il` (Tensor::layer).
    void setLayer(std::int32_t il) { layer_ = il; }
    void pinToLayer(Id t) { t_[t].layer_norm_pin = true; }
    void markKqvOut(Id t) { t_[t].kqv_out = true; }
    // What copying `t` (a view of a cache) to another backend takes (Tensor::copy_bytes).
    void setCopyBytes(Id t, Bytes bytes) { t_[t].copy_bytes = bytes; }
    // What the small weight `t` reads takes (Tensor::weight_bytes).
    void setWeightBytes(Id t, Bytes bytes) { t_[t].weight_bytes = bytes; }
    // ggml_cuda_flash_attn_ext_get_f16_extra_data: after the result, each of K and V that is
    // converted (`k_elems`, `v_elems` elements; 0 = not converted) starts at the next 128 bytes.
    void setFlashAttnF16Copies(Id fa, std::int64_t k_elems, std::int64_t v_elems);
    void markFfn(Id t) { t_[t].ffn = true; }
    // ggml_new_tensor + ggml_set_input.
    Id input(Elem type, std::int64_t ne0, std::int64_t ne1 = 1, std::int64_t ne2 = 1,
             std::int64_t ne3 = 1);
    // A new contiguous result of `op`.
    Id op(Op op, Elem type, std::array<std::int64_t, 4> ne, std::initializer_list<Id> srcs);
    // ggml_dup_tensor-shaped results: same shape as a, contiguous.
    Id unary(Op op, Id a, std::initializer_list<Id> extra = {});

    Id getRows(Id a, Id rows); // [a.ne0, rows.ne0, rows.ne1, rows.ne2] f32
    Id add(Id a, Id b) { return unary(Op::Add, a, {b}); }
    Id mul(Id a, Id b) { return unary(Op::Mul, a, {b}); }
    Id rmsNorm(Id a) { return unary(Op::RmsNorm, a); }
    Id norm(Id a) { return unary(Op::Norm, a); }
    Id scale(Id a) { return unary(Op::Scale, a); }
    Id glu(Id a, Id b) { return unary(Op::Glu, a, {b}); }
    Id cont(Id a, std::array<std::int64_t, 4> ne);
    Id reshape(Id a, std::array<std::int64_t, 4> ne);
    // ggml_view_4d with the given strides (nb0 = the element size), offset irrelevant here.
    Id view(Id a, std::array<std::int64_t, 4> ne, std::array<std::uint64_t, 4> nb);
    Id permute(Id a, int ax0, int ax1, int ax2, int ax3);
    // A view of external memory (a cache tensor) with the given sources (ggml_set_rows,
    // ggml_view_* of the cache).
    // `cache`: the cache read (cacheRead) whose memory the node writes, its view_src.
    Id externalNode(Op op, std::initializer_list<Id> srcs, Id cache = kNone);
    std::int32_t layer() const { return layer_; }

    void setOutput(Id t) { t_[t].output = true; }
    // ggml_is_contiguous.
    bool isContiguous(Id t) const;
    const Tensor& at(Id t) const { return t_[t]; }
    // ggml_build_forward_expand.
    void expand(Id t);

    // Room for `tensors` tensors and as many nodes, so that building a large graph does not
    // move them again and again.
    void reserve(size_t tensors);

    const std::vector<Tensor>& tensors() const { return t_; }
    const std::vector<Id>& leafs() const { return leafs_; }
    const std::vector<Id>& nodes() const { return nodes_; }

private:
    Id add(Tensor t);
    std::vector<Tensor> t_;
    std::vector<Id> leafs_, nodes_;
    std::vector<Id> stack_;
    Id weight_ = kNone;
    std::int32_t layer_ = -1;
};

Bytes elemSize(Elem e);
// One line per node of the compute buffer (external nodes left out) in graph order, "OP
// [ne0,ne1,ne2,ne3]" with ggml's op names (GGML_OP_* without the prefix; unary ops as UNARY), to
// compare a skeleton with a graph llama.cpp dumped.
std::vector<std::string> describeNodes(const Graph& g);
// ggml_nbytes of a contiguous tensor.
Bytes nbytes(const Tensor& t);

// The buffer ggml-alloc needs for the graph on one backend: ggml_gallocr_alloc_graph_impl's
// allocation order (leafs, then the graph inputs, then each node after its sources, freeing a
// source after its last consumer, in place where ggml_op_can_inplace allows) over
// ggml_dyn_tallocr's best-fit free blocks, each size padded to `alignment`
// (ggml_backend_buft_get_alignment: 32 on the CPU, TENSOR_ALIGNMENT). One chunk: the CPU
// buffer type has no maximum size. `flash_attn_f16_copies`: the buffer type is ggml-cuda's
// (BufferType::flash_attn_f16_copies).
Bytes replayPeak(const Graph& g, Bytes alignment, bool flash_attn_f16_copies = false);

// One backend's compute buffer type: ggml_backend_buft_get_alignment and
// ggml_backend_buft_get_max_size (the chunk size ggml_dyn_tallocr packs into).
struct BufferType {
    Bytes alignment = 32;
    Bytes max_size = 0; // 0: no maximum (the CPU buffer type)
    // ggml_backend_buft_get_alloc_size adds Tensor::fa_f16_extra to a FLASH_ATTN_EXT node
    // (ggml-cuda's buffer type, BackendTraits::flash_attn_f16_copies).
    bool flash_attn_f16_copies = false;
};

// Which ggml_vk_graph_optimize reorders the device splits: none (a CPU-only or CUDA/Metal plan),
// llama.cpp v0.4.0's, or v0.5.0's, which also keeps RMS_NORM + MUL (+ ADD (+ MUL)),
// (RMS_NORM + MUL +) ROPE + VIEW + SET_ROWS and RMS_NORM + VIEW + SET_ROWS together where they
// start, pulls a MUL forward to the RMS_NORM or UNARY it reads across views, and keeps the
// sources of a fused top-k MoE router alive through it (ggml_backend_graph_optimize_params
// add_alloc_dep).
enum class VulkanReorder : std::uint8_t { Off, V0_4_0, V0_5_0 };

// Where the weights and caches of each block live and how ggml_backend_sched places the graph
// over the backends: the devices 0..n-1 first, the CPU last (src/llama-context.cpp,
// llama_context ctor: the GPU backends, then the CPU).
struct SchedPlacement {
    std::vector<BufferType> buffers; // per backend, the CPU's last
    std::vector<int> layer_backend;  // per block: its dense weights and its cache
    std::vector<int> expert_backend; // per block: its routed experts (--n-cpu-moe)
    std::vector<int> ffn_backend;    // per block: its FFN projections (-ot); empty: with the block
    int output_backend = 0;          // output norm and head
    // Weight bytes per block (index n_layer: the output head), to size a weight's copy when an
    // op runs on another backend: dense (attention, FFN, SSM) and routed experts.
    std::vector<Bytes> dense_bytes, expert_bytes;
    // Per block, its weights of two or more dimensions by input and output width, with their
    // bytes (ModelShape's LayerShape::matrices): a matrix product's copy takes its weight's own
    // bytes when one matches, the share of the block's bytes by elements otherwise.
    struct Matrix {
        std::int64_t in = 0;
        std::int64_t out = 0;
        Bytes bytes = 0;
        bool experts = false; // read by MUL_MAT_ID
    };
    std::vector<std::vector<Matrix>> matrices;
    std::int64_t n_expert = 0;
    bool op_offload = true;
    std::int64_t offload_min_batch = 32; // the device's op_offload_min_batch_size
    // ggml-metal's offload_op takes only matrix products (BackendTraits::offload MatMulOnly).
    bool offload_matmul_only = false;
    int n_copies = 1; // pipeline parallelism: GGML_SCHED_MAX_COPIES
    // src/llama-context.cpp llama_context::graph_get_cb: under full offload (n_gpu_layers >
    // n_layer) or a micro-batch under 32, each block's weighted norms ("norm", named by
    // llm_graph_context::build_norm) are set to the block's backend before the scheduler places
    // the rest (ggml_backend_sched_set_tensor_backend).
    bool pin_norms = false;
    // -nkvo: every cache in host memory (llama_kv_cache and llama_memory_recurrent ctors:
    // offload ? model.dev_layer(il) : the CPU), and build_attn_mha sets the attention output
    // without flash attention to the CPU (ggml_backend_sched_set_tensor_backend).
    bool kv_on_host = false;
    // ggml/src/ggml-vulkan/ggml-vulkan.cpp ggml_vk_graph_optimize reorders each device split
    // before it is allocated (ggml_backend_sched_split_graph calls ggml_backend_graph_optimize);
    // the release picks its rules (VulkanReorder).
    VulkanReorder vulkan_reorder = VulkanReorder::Off;
    // Per backend, the largest tensor its supports_op takes (0: no limit): ggml-vulkan v0.5.0
    // refuses an op any of whose tensors passes the device's maxStorageBufferRange
    // (ggml_backend_vk_device_supports_op tensor_size_supported), and the scheduler runs it on
    // the CPU.
    std::vector<Bytes> max_tensor_bytes;
};

// One backend's buffer after the scheduled replay: its size (the sum of its chunks' high-water
// marks) and how many chunks (ggml_backend_buffer allocations) it took.
struct BackendCompute {
    Bytes bytes = 0;
    int chunks = 0;
};

// The compute buffers ggml_backend_sched reserves for `g` over several backends (llama.cpp
// v0.5.0 (de3ff815), the same in v0.4.0): nodes assigned as ggml_backend_sched_split_graph does
// (ggml/src/ggml-backend.cpp; ggml_backend_sched_backend_id_from_cur for pass 1), the graph cut
// into splits whose foreign inputs are copied into the split's backend, and that copy replayed
// through one ggml_gallocr with a buffer per backend (ggml/src/ggml-alloc.c,
// ggml_gallocr_alloc_graph_impl with node_buffer_ids), each packed in chunks of its buffer type's
// maximum size (ggml_dyn_tallocr_alloc). One entry per backend of `p.buffers`.
std::vector<BackendCompute> replaySchedule(const Graph& g, const SchedPlacement& p);

} // namespace headroom::graph
