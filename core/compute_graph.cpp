#include "compute_graph.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace headroom::graph {

Bytes elemSize(Elem e) {
    switch (e) {
    case Elem::F16:
        return 2;
    case Elem::I64:
        return 8;
    case Elem::I8:
        return 1;
    case Elem::F32:
    case Elem::I32:
        break;
    }
    return 4;
}

Bytes nbytes(const Tensor& t) {
    Bytes n = elemSize(t.type);
    for (const std::int64_t d : t.ne)
        n = satMul(n, static_cast<Bytes>(std::max<std::int64_t>(d, 0)));
    return n;
}

namespace {

const char* opName(Op op) {
    switch (op) {
    case Op::None:
        return "NONE";
    case Op::GetRows:
        return "GET_ROWS";
    case Op::RmsNorm:
        return "RMS_NORM";
    case Op::Norm:
        return "NORM";
    case Op::Mul:
        return "MUL";
    case Op::Add:
        return "ADD";
    case Op::Scale:
        return "SCALE";
    case Op::Unary:
        return "UNARY";
    case Op::SoftMax:
        return "SOFT_MAX";
    case Op::Rope:
        return "ROPE";
    case Op::MulMat:
        return "MUL_MAT";
    case Op::MulMatId:
        return "MUL_MAT_ID";
    case Op::Glu:
        return "GLU";
    case Op::Cont:
        return "CONT";
    case Op::Cpy:
        return "CPY";
    case Op::Concat:
        return "CONCAT";
    case Op::Argsort:
        return "ARGSORT";
    case Op::SumRows:
        return "SUM_ROWS";
    case Op::Div:
        return "DIV";
    case Op::Clamp:
        return "CLAMP";
    case Op::AddId:
        return "ADD_ID";
    case Op::Repeat:
        return "REPEAT";
    case Op::SsmConv:
        return "SSM_CONV";
    case Op::SsmScan:
        return "SSM_SCAN";
    case Op::Sqr:
        return "SQR";
    case Op::FlashAttn:
        return "FLASH_ATTN_EXT";
    case Op::SetRows:
        return "SET_ROWS";
    case Op::Reshape:
        return "RESHAPE";
    case Op::View:
        return "VIEW";
    case Op::Permute:
        return "PERMUTE";
    case Op::L2Norm:
        return "L2_NORM";
    case Op::GatedDeltaNet:
        return "GATED_DELTA_NET";
    case Op::Sub:
        return "SUB";
    case Op::Sqrt:
        return "SQRT";
    case Op::Mean:
        return "MEAN";
    }
    return "?";
}

// ggml_new_tensor_impl: a new tensor's strides are contiguous.
void contiguous(Tensor& t) {
    t.nb[0] = elemSize(t.type);
    for (int i = 1; i < 4; ++i)
        t.nb[i] = t.nb[i - 1] * static_cast<std::uint64_t>(std::max<std::int64_t>(t.ne[i - 1], 1));
}

} // namespace

Graph::Graph() {
    t_.reserve(4096);
    Tensor w;
    w.external = true;
    weight_ = add(w);
}

void Graph::reserve(size_t tensors) {
    t_.reserve(tensors);
    nodes_.reserve(tensors);
    leafs_.reserve(tensors / 4);
}

Id Graph::add(Tensor t) {
    t.layer = layer_;
    t_.push_back(t);
    return static_cast<Id>(t_.size() - 1);
}

Id Graph::input(Elem type, std::int64_t ne0, std::int64_t ne1, std::int64_t ne2, std::int64_t ne3) {
    Tensor t;
    t.type = type;
    t.ne = {ne0, ne1, ne2, ne3};
    contiguous(t);
    t.input = true;
    return add(t);
}

Id Graph::op(Op op, Elem type, std::array<std::int64_t, 4> ne, std::initializer_list<Id> srcs) {
    Tensor t;
    t.op = op;
    t.type = type;
    t.ne = ne;
    contiguous(t);
    size_t i = 0;
    for (const Id s : srcs)
        if (i < t.src.size()) t.src[i++] = s;
    return add(t);
}

Id Graph::unary(Op o, Id a, std::initializer_list<Id> extra) {
    const Tensor& ta = t_[a];
    const Elem type = ta.type;
    const auto ne = ta.ne;
    const Id id = op(o, type, ne, {a});
    size_t i = 1;
    for (const Id s : extra)
        if (i < t_[id].src.size()) t_[id].src[i++] = s;
    return id;
}

Id Graph::getRows(Id a, Id rows) {
    const Tensor& tr = t_[rows];
    return op(Op::GetRows, Elem::F32, {t_[a].ne[0], tr.ne[0], tr.ne[1], tr.ne[2]}, {a, rows});
}

bool Graph::isContiguous(Id id) const {
    Tensor c = t_[id];
    contiguous(c);
    return c.nb == t_[id].nb;
}

Id Graph::cont(Id a, std::array<std::int64_t, 4> ne) {
    return op(Op::Cont, t_[a].type, ne, {a});
}

Id Graph::reshape(Id a, std::array<std::int64_t, 4> ne) {
    Tensor t;
    t.op = Op::Reshape;
    t.type = t_[a].type;
    t.ne = ne;
    contiguous(t);
    t.external = t_[a].external;
    t.view_src = t_[a].view_src != kNone ? t_[a].view_src : a;
    t.src[0] = a;
    return add(t);
}

Id Graph::view(Id a, std::array<std::int64_t, 4> ne, std::array<std::uint64_t, 4> nb) {
    Tensor t;
    t.op = Op::View;
    t.type = t_[a].type;
    t.ne = ne;
    t.nb = nb;
    t.external = t_[a].external;
    t.view_src = t_[a].view_src != kNone ? t_[a].view_src : a;
    t.src[0] = a;
    return add(t);
}

Id Graph::permute(Id a, int ax0, int ax1, int ax2, int ax3) {
    // ggml_permute: source dimension i moves to position axis[i].
    Tensor t;
    const Tensor& ta = t_[a];
    t.op = Op::Permute;
    t.type = ta.type;
    const std::array<int, 4> ax{ax0, ax1, ax2, ax3};
    for (int i = 0; i < 4; ++i) {
        t.ne[static_cast<size_t>(ax[static_cast<size_t>(i)])] = ta.ne[static_cast<size_t>(i)];
        t.nb[static_cast<size_t>(ax[static_cast<size_t>(i)])] = ta.nb[static_cast<size_t>(i)];
    }
    t.external = ta.external;
    t.view_src = ta.view_src != kNone ? ta.view_src : a;
    t.src[0] = a;
    return add(t);
}

Id Graph::cacheRead(Bytes bytes) {
    Tensor t;
    t.external = true;
    t.copy_bytes = bytes;
    return add(t);
}

void Graph::setFlashAttnF16Copies(Id fa, std::int64_t k_elems, std::int64_t v_elems) {
    const Bytes result = nbytes(t_[fa]);
    Bytes end = result;
    for (const std::int64_t e : {k_elems, v_elems})
        if (e > 0) end = ceilDiv(end, 128) * 128 + 2 * static_cast<Bytes>(e);
    t_[fa].fa_f16_extra = end - result;
}

Id Graph::ownWeight(Bytes bytes) {
    Tensor t;
    t.external = true;
    t.weight = true;
    t.copy_bytes = bytes;
    return add(t);
}

Id Graph::externalNode(Op o, std::initializer_list<Id> srcs, Id cache) {
    Tensor t;
    t.op = o;
    t.external = true;
    t.view_src = cache != kNone ? cache : weight_;
    size_t i = 0;
    // The cache written to is the block's own memory, not a weight.
    for (const Id s : srcs)
        if (i < t.src.size()) t.src[i++] = s == weight_ ? cacheRead(0) : s;
    return add(t);
}

void Graph::expand(Id root) {
    // ggml_visit_parents, iteratively: a tensor is appended after all its sources.
    if (t_[root].visited) return;
    stack_.clear();
    stack_.push_back(root);
    while (!stack_.empty()) {
        const Id cur = stack_.back();
        Tensor& t = t_[cur];
        if (t.visited) {
            stack_.pop_back();
            continue;
        }
        bool pending = false;
        // Push unvisited sources right to left so the leftmost is visited first.
        for (size_t j = t.src.size(); j-- > 0;) {
            const Id s = t.src[j];
            if (s != kNone && !t_[s].visited) {
                stack_.push_back(s);
                pending = true;
            }
        }
        if (pending) continue;
        t.visited = true;
        stack_.pop_back();
        (t.op == Op::None ? leafs_ : nodes_).push_back(cur);
    }
}

std::vector<std::string> describeNodes(const Graph& g) {
    std::vector<std::string> out;
    out.reserve(g.nodes().size());
    for (const Id n : g.nodes()) {
        const Tensor& t = g.at(n);
        if (t.external) continue; // outside the buffer: a cache write or view
        std::string line = opName(t.op);
        line += " [";
        for (size_t i = 0; i < 4; ++i) {
            if (i > 0) line += ',';
            line += std::to_string(t.ne[i]);
        }
        line += ']';
        out.push_back(std::move(line));
    }
    return out;
}

namespace {

bool canInplace(Op op) {
    switch (op) {
    case Op::Add:
    case Op::Mul:
    case Op::Div:
    case Op::Clamp:
    case Op::AddId:
    case Op::Sqr:
    case Op::Sub:
    case Op::Sqrt:
    case Op::Scale:
    case Op::Unary:
    case Op::Rope:
    case Op::RmsNorm:
    case Op::SoftMax:
        return true;
    default:
        return false;
    }
}

bool sameLayout(const Tensor& a, const Tensor& b) {
    return a.type == b.type && a.ne == b.ne && a.nb == b.nb;
}

struct Block {
    Bytes off = 0;
    Bytes size = 0;
};

struct Chunk {
    std::vector<Block> blocks; // free blocks sorted by offset
    Bytes max = 0;             // high-water mark
};

struct Addr {
    int chunk = 0;
    Bytes off = 0;
};

// ggml_dyn_tallocr (ggml/src/ggml-alloc.c): free blocks per chunk, a new chunk when no chunk's
// blocks can take a tensor, each chunk's last block bounded by the buffer type's maximum size
// (ggml_dyn_tallocr_new_chunk: MAX(min_size, max_chunk_size)); without a maximum, one chunk.
class Tallocr {
public:
    Tallocr(Bytes alignment, Bytes max_size, bool fa_f16_copies = false)
        : fa_f16_copies_(fa_f16_copies), align_(std::max<Bytes>(1, alignment)),
          max_chunk_(max_size == 0 ? std::numeric_limits<Bytes>::max() / 2
                                   : std::min(max_size, std::numeric_limits<Bytes>::max() / 2)) {}
    Bytes padded(Bytes size) const { return ceilDiv(size, align_) * align_; }
    // ggml_backend_buft_get_alloc_size of `t` in this buffer type.
    Bytes allocSize(const Tensor& t) const {
        const Bytes n = nbytes(t);
        return fa_f16_copies_ && t.op == Op::FlashAttn ? satAdd(n, t.fa_f16_extra) : n;
    }

    // ggml_dyn_tallocr_alloc: the best-fitting block other than a chunk's last one in any chunk
    // (ties go to the later block), else the chunk's last block that wastes least (reuse_factor),
    // else a new chunk of the tensor's size or the maximum, whichever is larger.
    Addr alloc(Bytes size) {
        size = padded(size);
        int best_c = -1;
        size_t best_b = 0;
        for (size_t c = 0; c < chunks_.size(); ++c) {
            Bytes best_size = std::numeric_limits<Bytes>::max();
            const auto& bl = chunks_[c].blocks;
            for (size_t i = 0; i + 1 < bl.size(); ++i)
                if (bl[i].size >= size && bl[i].size <= best_size) {
                    best_c = static_cast<int>(c);
                    best_b = i;
                    best_size = bl[i].size;
                }
        }
        if (best_c < 0) {
            std::int64_t best_reuse = std::numeric_limits<std::int64_t>::min();
            for (size_t c = 0; c < chunks_.size(); ++c) {
                const auto& bl = chunks_[c].blocks;
                if (bl.empty()) continue;
                const Block& b = bl.back();
                const std::int64_t reuse = static_cast<std::int64_t>(chunks_[c].max) -
                                           static_cast<std::int64_t>(b.off) -
                                           static_cast<std::int64_t>(size);
                const bool better_reuse = best_reuse < 0 && reuse > best_reuse;
                const bool better_fit = reuse >= 0 && reuse < best_reuse;
                if (b.size >= size && (better_reuse || better_fit)) {
                    best_c = static_cast<int>(c);
                    best_b = bl.size() - 1;
                    best_reuse = reuse;
                }
            }
        }
        if (best_c < 0) {
            Chunk ch;
            ch.blocks.push_back({0, std::max(size, max_chunk_)});
            chunks_.push_back(std::move(ch));
            best_c = static_cast<int>(chunks_.size() - 1);
            best_b = 0;
        }
        Chunk& ch = chunks_[static_cast<size_t>(best_c)];
        Block& b = ch.blocks[best_b];
        const Addr addr{best_c, b.off};
        b.off += size;
        b.size -= size;
        if (b.size == 0) ch.blocks.erase(ch.blocks.begin() + static_cast<std::ptrdiff_t>(best_b));
        ch.max = std::max(ch.max, addr.off + size);
        return addr;
    }

    // ggml_dyn_tallocr_free_bytes: merge with the block that ends here or starts after it.
    void free(Addr addr, Bytes size) {
        size = padded(size);
        auto& blocks = chunks_[static_cast<size_t>(addr.chunk)].blocks;
        const Bytes off = addr.off;
        for (size_t i = 0; i < blocks.size(); ++i) {
            Block& b = blocks[i];
            if (b.off + b.size == off) {
                b.size += size;
                if (i + 1 < blocks.size() && b.off + b.size == blocks[i + 1].off) {
                    b.size += blocks[i + 1].size;
                    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i + 1));
                }
                return;
            }
            if (off + size == b.off) {
                b.off = off;
                b.size += size;
                if (i > 0 && blocks[i - 1].off + blocks[i - 1].size == b.off) {
                    blocks[i - 1].size += b.size;
                    blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
                }
                return;
            }
        }
        size_t pos = 0;
        while (pos < blocks.size() && blocks[pos].off < off)
            ++pos;
        blocks.insert(blocks.begin() + static_cast<std::ptrdiff_t>(pos), Block{off, size});
    }
    // The buffer: the sum of the chunks' high-water marks (ggml_vbuffer_alloc allocates each).
    BackendCompute total() const {
        BackendCompute r;
        for (const Chunk& c : chunks_)
            if (c.max > 0) {
                r.bytes += c.max;
                ++r.chunks;
            }
        return r;
    }

private:
    bool fa_f16_copies_;
    Bytes align_;
    Bytes max_chunk_;
    std::vector<Chunk> chunks_;
};

struct HashNode {
    int n_children = 0;
    int n_views = 0;
    bool allocated = false;
    int buffer = 0;
    Addr addr;
};

// ggml_gallocr_alloc_graph_impl over a graph whose nodes and leafs each name their buffer.
class Replay {
public:
    // `hash` is scratch storage, one entry per tensor (reused across replays so its pages stay
    // mapped).
    Replay(const std::vector<Tensor>& tensors, const std::vector<Id>& leafs,
           const std::vector<Id>& nodes, const std::vector<int>& leaf_buf,
           const std::vector<int>& node_buf, std::vector<Tallocr>& tallocs,
           std::vector<HashNode>& hash)
        : t_(tensors), leafs_(leafs), nodes_(nodes), leaf_buf_(leaf_buf), node_buf_(node_buf),
          h_(hash), a_(tallocs) {
        h_.assign(tensors.size(), HashNode{});
    }

    void run() {
        for (size_t i = 0; i < leafs_.size(); ++i)
            allocate(leafs_[i], leaf_buf_[i]);
        for (size_t i = 0; i < nodes_.size(); ++i) {
            const Id n = nodes_[i];
            const Tensor& t = t_[n];
            // A GGML_OP_NONE view (ggml_backend_sched's input dependency) is not counted as a
            // view of its source.
            if (t.view_src != kNone && t.op != Op::None) h_[t.view_src].n_views++;
            if (t.input) allocate(n, node_buf_[i]);
            for (const Id s : t.src) {
                if (s == kNone) continue;
                h_[s].n_children++;
                if (t_[s].input) allocate(s, node_buf_[i]);
            }
        }
        for (size_t i = 0; i < nodes_.size(); ++i) {
            const Id n = nodes_[i];
            const Tensor& t = t_[n];
            for (const Id s : t.src)
                if (s != kNone) allocate(s, node_buf_[i]);
            allocate(n, node_buf_[i]);
            for (const Id p : t.src) {
                if (p == kNone) continue;
                HashNode& ph = h_[p];
                ph.n_children--;
                if (ph.n_children != 0 || ph.n_views != 0) continue;
                const Id vs = t_[p].view_src;
                if (vs != kNone) {
                    HashNode& vh = h_[vs];
                    vh.n_views--;
                    if (vh.n_views == 0 && vh.n_children == 0 && vh.allocated) release(vs);
                } else if (ph.allocated) {
                    release(p);
                }
            }
        }
    }

private:
    bool isAllocated(Id id) const { return t_[id].external || h_[id].allocated; }

    // ggml_gallocr_allocate_node.
    void allocate(Id id, int buffer) {
        const Tensor& t = t_[id];
        if (isAllocated(id) || t.view_src != kNone) return;
        HashNode& hn = h_[id];
        hn.allocated = true;
        if (canInplace(t.op)) {
            for (const Id p : t.src) {
                if (p == kNone || !h_[p].allocated || t_[p].external) continue;
                const Tensor& tp = t_[p];
                if (tp.output || (tp.view_src != kNone && t_[tp.view_src].output)) continue;
                if (!sameLayout(t, tp)) continue;
                HashNode& ph = h_[p];
                if (ph.n_children != 1 || ph.n_views != 0) continue;
                if (tp.view_src != kNone) {
                    HashNode& vh = h_[tp.view_src];
                    // view_src->data == parent->data: the skeletons' views of graph tensors all
                    // start at their source's first byte.
                    if (vh.n_views == 1 && vh.n_children == 0) {
                        hn.buffer = ph.buffer;
                        hn.addr = ph.addr;
                        ph.allocated = false;
                        vh.allocated = false;
                        freeExtra(t, t_[tp.view_src], ph.buffer, ph.addr);
                        return;
                    }
                } else {
                    hn.buffer = ph.buffer;
                    hn.addr = ph.addr;
                    ph.allocated = false;
                    freeExtra(t, tp, ph.buffer, ph.addr);
                    return;
                }
            }
        }
        hn.buffer = buffer;
        Tallocr& a = a_[static_cast<size_t>(buffer)];
        hn.addr = a.alloc(a.allocSize(t));
    }

    // ggml_gallocr_free_extra_space.
    void freeExtra(const Tensor& node, const Tensor& parent, int buffer, Addr addr) {
        Tallocr& a = a_[static_cast<size_t>(buffer)];
        const Bytes ps = a.padded(a.allocSize(parent));
        const Bytes ns = a.padded(a.allocSize(node));
        if (ps > ns) a.free({addr.chunk, addr.off + ns}, ps - ns);
    }

    // ggml_gallocr_free_node: graph outputs are never freed.
    void release(Id id) {
        if (t_[id].output) return;
        HashNode& hn = h_[id];
        Tallocr& a = a_[static_cast<size_t>(hn.buffer)];
        a.free(hn.addr, a.allocSize(t_[id]));
        hn.allocated = false;
    }

    const std::vector<Tensor>& t_;
    const std::vector<Id>& leafs_;
    const std::vector<Id>& nodes_;
    const std::vector<int>& leaf_buf_;
    const std::vector<int>& node_buf_;
    std::vector<HashNode>& h_;
    std::vector<Tallocr>& a_;
};

} // namespace

Bytes replayPeak(const Graph& g, Bytes alignment, bool flash_attn_f16_copies) {
    std::vector<Tallocr> tallocs{Tallocr(alignment, 0, flash_attn_f16_copies)};
    const std::vector<int> leaf_buf(g.leafs().size(), 0);
    const std::vector<int> node_buf(g.nodes().size(), 0);
    std::vector<HashNode> hash;
    Replay r(g.tensors(), g.leafs(), g.nodes(), leaf_buf, node_buf, tallocs, hash);
    r.run();
    return tallocs[0].total().bytes;
}

namespace {

// ggml_is_view_op: the scheduler's passes skip these.
bool isViewOp(Op op) {
    return op == Op::Reshape || op == Op::View || op == Op::Permute;
}

// ggml_vk_get_op_batch_size (ggml/src/ggml-vulkan/ggml-vulkan.cpp): what op offload compares
// with the minimum batch; GET_ROWS is never offloaded.
std::int64_t opBatch(const Tensor& t) {
    switch (t.op) {
    case Op::GetRows:
        return 0;
    case Op::MulMat:
        return t.ne[1];
    case Op::MulMatId:
    case Op::Rope:
        return t.ne[2];
    default:
        return t.ne[1] * t.ne[2] * t.ne[3];
    }
}

// The elements of the weight a node reads (the skeleton's one weight tensor stands for all of
// them): a matrix of the result's rows by the input's columns, all experts for MUL_MAT_ID; 0 for
// the small ones (norms, biases, convolution kernels) and token_embd, which stays on the CPU.
std::int64_t weightElements(const std::vector<Tensor>& t, const Tensor& n, std::int64_t n_expert) {
    if (n.op == Op::MulMat && n.src[1] != kNone) return n.ne[0] * t[n.src[1]].ne[0];
    if (n.op == Op::MulMatId && n.src[1] != kNone)
        return n.ne[0] * t[n.src[1]].ne[0] * std::max<std::int64_t>(1, n_expert);
    return 0;
}

// ggml_nbytes of a tensor with its own strides (ggml_dup_tensor_layout keeps a view's layout, so
// a copy of a strided view spans its strides): the element size plus (ne[i] - 1) * nb[i].
Bytes layoutBytes(const Tensor& t) {
    if (std::any_of(t.ne.begin(), t.ne.end(), [](std::int64_t n) { return n <= 0; })) return 0;
    Tensor c = t;
    contiguous(c);
    if (c.nb == t.nb) return nbytes(t);
    Bytes b = elemSize(t.type);
    for (size_t i = 0; i < 4; ++i)
        b = satAdd(b, satMul(static_cast<Bytes>(t.ne[i] - 1), t.nb[i]));
    return b;
}

// ggml-vulkan's top-k MoE router patterns that ggml_vk_graph_optimize keeps together
// (ggml-vulkan.cpp topk_moe_early_softmax_norm, topk_moe_sigmoid_norm_bias, topk_moe_early_softmax,
// topk_moe_late_softmax; the others hold ops no skeleton has).
constexpr std::array<std::initializer_list<Op>, 4> kKeptPatterns{{
    {Op::SoftMax, Op::Reshape, Op::Argsort, Op::View, Op::GetRows, Op::Reshape, Op::SumRows,
     Op::Clamp, Op::Div, Op::Reshape},
    {Op::Unary, Op::Reshape, Op::Add, Op::Argsort, Op::View, Op::GetRows, Op::Reshape, Op::SumRows,
     Op::Clamp, Op::Div, Op::Reshape},
    {Op::SoftMax, Op::Reshape, Op::Argsort, Op::View, Op::GetRows},
    {Op::Argsort, Op::View, Op::GetRows, Op::Reshape, Op::SoftMax, Op::Reshape},
}};

// The fusion patterns llama.cpp v0.5.0 (de3ff815) also keeps together, in the order
// ggml_vk_graph_optimize tries them (ggml/src/ggml-vulkan/ggml-vulkan-types.h
// rms_norm_mul_add_mul_pattern, rms_norm_mul_add_pattern, rms_norm_mul_rope_view_set_rows_pattern,
// rms_norm_view_set_rows_pattern, rope_view_set_rows_pattern).
constexpr std::array<std::initializer_list<Op>, 5> kKeptPatternsV050{{
    {Op::RmsNorm, Op::Mul, Op::Add, Op::Mul},
    {Op::RmsNorm, Op::Mul, Op::Add},
    {Op::RmsNorm, Op::Mul, Op::Rope, Op::View, Op::SetRows},
    {Op::RmsNorm, Op::View, Op::SetRows},
    {Op::Rope, Op::View, Op::SetRows},
}};

// ggml.c ggml_is_contiguous_n(t, 1): rows contiguous, the second dimension's stride free, the
// outer ones packed after it (the skeleton has no quantized compute tensors: block size 1).
bool contiguousRows(const Tensor& x) {
    Bytes next = elemSize(x.type);
    if (x.ne[0] != 1 && x.nb[0] != next) return false;
    next *= static_cast<Bytes>(x.ne[0]);
    for (size_t i = 1; i < 4; ++i) {
        if (x.ne[i] == 1) continue;
        if (i > 1) {
            if (x.nb[i] != next) return false;
            next *= static_cast<Bytes>(x.ne[i]);
        } else {
            next = static_cast<Bytes>(x.ne[i]) * x.nb[i];
        }
    }
    return true;
}

// ggml.c ggml_can_repeat: every dimension of b a multiple of a's.
bool canRepeat(const Tensor& a, const Tensor& b) {
    const bool a_empty =
        std::any_of(a.ne.begin(), a.ne.end(), [](std::int64_t v) { return v == 0; });
    const bool b_empty =
        std::any_of(b.ne.begin(), b.ne.end(), [](std::int64_t v) { return v == 0; });
    if (a_empty) return b_empty;
    for (size_t i = 0; i < 4; ++i)
        if (b.ne[i] % a.ne[i] != 0) return false;
    return true;
}

// ggml_vk_graph_optimize (ggml/src/ggml-vulkan/ggml-vulkan.cpp), which
// ggml_backend_sched_split_graph runs on each Vulkan split before the graph is allocated: from the
// first node not yet placed, it pulls forward the next nodes (of the following 20) that read
// nothing still unplaced, so independent branches run together, keeping fusable chains (RMS_NORM +
// MUL, ROPE + VIEW + SET_ROWS, ...) adjacent, then the views whose sources are placed. `rel`
// picks llama.cpp v0.4.0's rules or v0.5.0's (de3ff815, the same function; the differences are
// marked). `use_count` is each tensor's consumers in the whole graph (ggml_node_get_use_count);
// `deps` receives v0.5.0's allocation dependencies: the tensors a fused top-k MoE router reads,
// kept allocated until its last node (add_pattern_alloc_deps, ggml_backend_graph_optimize_params
// add_alloc_dep).
void vkGraphOptimize(const std::vector<Tensor>& t, const std::vector<Id>& base_of,
                     const std::vector<int>& use_count, VulkanReorder rel, std::vector<Id>& nodes,
                     std::vector<std::pair<Id, std::vector<Id>>>& deps) {
    const bool v050 = rel == VulkanReorder::V0_5_0;
    const int n = static_cast<int>(nodes.size());
    // An index as the vectors take it (the loops count in int as ggml_vk_graph_optimize does).
    auto U = [](int i) { return static_cast<size_t>(i); };
    auto isEmpty = [&](Id x) {
        const Op o = t[x].op;
        return o == Op::None || o == Op::Reshape || o == Op::View || o == Op::Permute;
    };
    auto base = [&](Id x) { return base_of[static_cast<size_t>(x)]; };
    // The window loops below ask for these of every position many times: kept in compact arrays
    // by position rather than read from the tensors each time. A graph has hundreds of splits,
    // so the arrays are kept per thread and refilled rather than allocated for each.
    thread_local std::vector<Op> op_at;
    thread_local std::vector<std::uint8_t> empty_at;
    thread_local std::vector<Id> base_at;
    // How many of its source slots each node uses (the last one set, plus one): the loops below
    // stop there rather than run through all of GGML_MAX_SRC.
    thread_local std::vector<std::uint8_t> srcs_at;
    op_at.resize(nodes.size());
    empty_at.resize(nodes.size());
    base_at.resize(nodes.size());
    srcs_at.resize(nodes.size());
    for (int i = 0; i < n; ++i) {
        const Tensor& x = t[nodes[U(i)]];
        op_at[U(i)] = x.op;
        empty_at[U(i)] = isEmpty(nodes[U(i)]) ? 1 : 0;
        base_at[U(i)] = base(nodes[U(i)]);
        std::uint8_t k = static_cast<std::uint8_t>(x.src.size());
        while (k > 0 && x.src[k - 1] == kNone)
            --k;
        srcs_at[U(i)] = k;
    }
    auto op = [&](int i) { return op_at[U(i)]; };
    // Whether the node at position j reads the one at position c (ggml-vulkan.cpp
    // ggml_vk_graph_optimize's is_src_of).
    auto isSrcOf = [&](int j, int c) {
        const Id dst = nodes[U(j)], src = nodes[U(c)];
        const Id bd = base_at[U(j)], bs = base_at[U(c)];
        if (bd == bs) return true; // "implicit dependency if they view the same tensor"
        const Tensor& td = t[dst];
        const Tensor& ts = t[src];
        const bool either_empty = empty_at[U(j)] != 0 || empty_at[U(c)] != 0;
        const size_t n_src = either_empty ? srcs_at[U(j)] : std::max(srcs_at[U(j)], srcs_at[U(c)]);
        for (size_t s = 0; s < n_src; ++s) {
            const Id ds = td.src[s];
            if (ds == src) return true;
            if (either_empty) continue;
            if (ds != kNone && base(ds) == bs) return true;
            const Id ss = ts.src[s];
            if (ss != kNone && bd == base(ss)) return true;
        }
        return false;
    };
    thread_local std::vector<Id> order;
    order.clear();
    thread_local std::vector<std::uint8_t> used;
    used.assign(nodes.size(), 0);
    // used_node_set: a tensor is placed when it is one of the split's nodes already ordered.
    // Indexed by tensor id and kept per thread (a hash map per split cost more than the rest of
    // the reorder on a 94-block MoE); only this split's entries are set, and reset on the way out.
    thread_local std::vector<int> pos;
    if (pos.size() < t.size()) pos.resize(t.size(), -1);
    for (int i = 0; i < n; ++i)
        pos[static_cast<size_t>(nodes[U(i)])] = i;
    thread_local std::vector<std::uint8_t> ordered;
    ordered.assign(nodes.size(), 0);
    auto placed = [&](Id x) {
        const int i = x >= 0 ? pos[static_cast<size_t>(x)] : -1;
        return i >= 0 && ordered[U(i)];
    };
    auto matches = [&](std::initializer_list<Op> pattern, int start) {
        if (op(start) != *pattern.begin()) return false; // most nodes start no pattern
        if (start + static_cast<int>(pattern.size()) > n) return false;
        int j = 0;
        for (const Op o : pattern) {
            if (op(start + j) != o || used[U(start + j)]) return false;
            ++j;
        }
        return true;
    };
    auto matchesAny = [&](int start) {
        // Every pattern starts with one of these (kKeptPatterns, kKeptPatternsV050).
        const Op o = op(start);
        if (o != Op::SoftMax && o != Op::Unary && o != Op::Argsort && o != Op::RmsNorm &&
            o != Op::Rope)
            return false;
        const auto m = [&](const auto& pattern) { return matches(pattern, start); };
        return std::any_of(kKeptPatterns.begin(), kKeptPatterns.end(), m) ||
               (v050 && std::any_of(kKeptPatternsV050.begin(), kKeptPatternsV050.end(), m));
    };
    auto at = [&](int i) { return nodes[U(i)]; };
    // v0.5.0 empty_or_scheduled_between: every node in [lo, hi) placed or a view.
    auto emptyOrScheduledBetween = [&](int lo, int hi) {
        for (int v = lo; v < hi; ++v)
            if (!used[U(v)] && !(empty_at[U(v)] != 0)) return false;
        return true;
    };
    // ggml.c ggml_can_fuse_subgraph_ext for X + VIEW + SET_ROWS with the SET_ROWS the one output:
    // X and the view read by nothing outside the three (the skeleton's compute nodes all carry
    // GGML_TENSOR_FLAG_COMPUTE, and none of X, the view is a graph output), and the view's source
    // inside them.
    auto canFuseViewSetRows = [&](int x, int view, int set_rows) {
        const Tensor& tx = t[at(x)];
        const Tensor& tv = t[at(view)];
        const Tensor& ts = t[at(set_rows)];
        if (tx.output || tv.output) return false;
        const auto uses = [&](const Tensor& user, Id of) {
            return static_cast<int>(std::count(user.src.begin(), user.src.end(), of));
        };
        if (uses(tv, at(x)) + uses(ts, at(x)) != use_count[static_cast<size_t>(at(x))])
            return false;
        if (uses(ts, at(view)) != use_count[static_cast<size_t>(at(view))]) return false;
        return tx.view_src == kNone && tv.view_src == at(x);
    };
    // ggml_vk_can_fuse_unary_mul: the skeleton's UNARY nodes that feed a MUL are all SILU, GELU,
    // SIGMOID or SOFTPLUS (ggml_vk_unary_mul_op_index), so the op is not checked.
    auto canFuseUnaryMul = [&](int u, int m) {
        const Tensor& tu = t[at(u)];
        const Tensor& tm = t[at(m)];
        if (tu.type != Elem::F32 && tu.type != Elem::F16) return false;
        if (tu.type != tm.type) return false;
        if (tm.src[0] != at(u) && tm.src[1] != at(u)) return false;
        const Id other = tm.src[0] == at(u) ? tm.src[1] : tm.src[0];
        if (other == kNone || t[other].type != tu.type) return false;
        if (!contiguousRows(t[other]) || tu.src[0] == kNone || !contiguousRows(t[tu.src[0]]))
            return false;
        if (tm.src[0] == at(u)) return canRepeat(t[other], tu);
        return canRepeat(tu, t[tm.src[0]]);
    };
    thread_local std::vector<int> set; // the nodes placed together this round, reused across rounds
    set.reserve(64);
    int first = 0;
    while (first < n) {
        bool kept = false;
        for (size_t pi = 0; pi < kKeptPatterns.size() + (v050 ? kKeptPatternsV050.size() : 0);
             ++pi) {
            const bool moe = pi < kKeptPatterns.size();
            const auto& pattern =
                moe ? kKeptPatterns[pi] : kKeptPatternsV050[pi - kKeptPatterns.size()];
            if (!matches(pattern, first)) continue;
            const int len = static_cast<int>(pattern.size());
            if (v050 && moe) {
                // keep_topk_moe_pattern: the router's outside sources stay allocated until its
                // last node, or the SCALE after it that some variants fuse.
                int last = first + len - 1;
                if (last + 1 < n && op(last + 1) == Op::Scale) ++last;
                std::vector<Id> keep, seen;
                for (int j = 0; j < len; ++j) {
                    for (const Id s : t[at(first + j)].src)
                        if (s != kNone && std::find(seen.begin(), seen.end(), s) == seen.end()) {
                            seen.push_back(s);
                            keep.push_back(s);
                        }
                    seen.push_back(at(first + j));
                }
                const Id until = at(last);
                auto it = std::find_if(deps.begin(), deps.end(),
                                       [until](const auto& d) { return d.first == until; });
                if (it == deps.end()) it = deps.insert(deps.end(), {until, {}});
                for (const Id k : keep)
                    if (std::find(it->second.begin(), it->second.end(), k) == it->second.end())
                        it->second.push_back(k);
            }
            for (int j = 0; j < len; ++j) {
                order.push_back(at(first + j));
                ordered[U(first + j)] = true;
                used[U(first + j)] = true;
            }
            while (first < n && used[U(first)])
                ++first;
            kept = true;
            break;
        }
        if (kept) continue;
        set.assign(1, first);
        constexpr int kCheck = 20;
        const int last = std::min(first + kCheck, n);
        for (int j = first + 1; j < last; ++j) {
            if (used[U(j)] || (empty_at[U(j)] != 0)) continue;
            if (matchesAny(j)) continue;
            bool ok = true;
            // Every earlier pending node is checked (the order does not change the answer):
            // nearest first, where a chain's dependency usually is.
            for (int c = j - 1; c >= first && ok; --c) {
                if (used[U(c)] || !isSrcOf(j, c)) continue;
                const bool adjacent = j == c + 1 && c == set.back();
                const Op oc = op(c), oj = op(j);
                // v0.5.0: RMS_NORM + MUL and UNARY + MUL also across views or placed nodes.
                const bool across = v050 && c == set.back() && oj == Op::Mul &&
                                    (oc == Op::RmsNorm || oc == Op::Unary) &&
                                    emptyOrScheduledBetween(c + 1, j);
                const bool fusable =
                    across ||
                    (adjacent &&
                     ((oc == Op::RmsNorm && oj == Op::Mul) || (oc == Op::MulMat && oj == Op::Add) ||
                      (oc == Op::MulMatId && oj == Op::AddId) ||
                      (oc == Op::MulMatId && oj == Op::Mul) || (oc == Op::Add && oj == Op::Add) ||
                      (oc == Op::SsmConv && oj == Op::Add) ||
                      (oc == Op::SsmConv && oj == Op::Unary)));
                if (!fusable) ok = false;
            }
            if (!ok) continue;
            set.push_back(j);
            int rope = j;
            // RMS_NORM + MUL: the ROPE that reads it comes along.
            if (op(j) == Op::Mul && j > 0 && op(j - 1) == Op::RmsNorm)
                for (int k = j + 1; k < std::min(j + 15, n); ++k) {
                    const Tensor& tk = t[at(k)];
                    if (tk.op == Op::Rope && tk.src[0] == at(j) && tk.src[1] != kNone &&
                        t[tk.src[1]].op == Op::None &&
                        (tk.src[2] == kNone || t[tk.src[2]].op == Op::None)) {
                        rope = k;
                        set.push_back(k);
                        used[U(k)] = true;
                        break;
                    }
                }
            if (!v050 && op(rope) == Op::Rope) {
                // v0.4.0: ROPE + VIEW + SET_ROWS made consecutive.
                int view = -1;
                for (int k = rope + 1; k < std::min(rope + 10, n); ++k) {
                    const Tensor& tk = t[at(k)];
                    if (view == -1 && tk.op == Op::View && tk.src[0] == at(rope)) {
                        view = k;
                        continue;
                    }
                    if (view != -1 && tk.op == Op::SetRows && tk.src[0] == at(view)) {
                        set.push_back(view);
                        set.push_back(k);
                        used[U(view)] = true;
                        used[U(k)] = true;
                        break;
                    }
                }
            }
            if (v050 && (op(rope) == Op::Rope || op(rope) == Op::RmsNorm)) {
                // v0.5.0: ROPE or RMS_NORM + VIEW + SET_ROWS, over 15 nodes, skipping placed
                // ones, pulled only when they fuse and nothing between feeds the SET_ROWS.
                int view = -1;
                int set_rows = -1;
                for (int k = rope + 1; k < std::min(rope + 15, n); ++k) {
                    if (used[U(k)]) continue;
                    const Tensor& tk = t[at(k)];
                    if (view == -1 && tk.op == Op::View && tk.src[0] == at(rope)) {
                        view = k;
                        continue;
                    }
                    if (view != -1 && tk.op == Op::SetRows && tk.src[0] == at(view)) {
                        set_rows = k;
                        break;
                    }
                }
                if (set_rows != -1) {
                    bool pull = canFuseViewSetRows(rope, view, set_rows);
                    for (int c = rope + 1; pull && c < set_rows; ++c)
                        if (!used[U(c)] && c != view && (empty_at[U(c)] == 0) &&
                            isSrcOf(set_rows, c))
                            pull = false;
                    if (pull) {
                        set.push_back(view);
                        set.push_back(set_rows);
                        used[U(view)] = true;
                        used[U(set_rows)] = true;
                    }
                }
            }
            auto pullNext = [&](Op want, bool check_src1) {
                for (int k = j + 1; k < std::min(j + 15, n); ++k) {
                    const Tensor& tk = t[at(k)];
                    if (tk.op != want || tk.src[0] != at(j)) continue;
                    if (check_src1 &&
                        !(tk.src[1] != kNone && (t[tk.src[1]].op == Op::None || placed(tk.src[1]))))
                        continue;
                    set.push_back(k);
                    used[U(k)] = true;
                    return;
                }
            };
            // MUL_MAT_ID + ADD_ID + MUL, MUL_MAT + ADD + ADD, SSM_CONV + ADD + UNARY.
            if (op(j) == Op::AddId && op(j - 1) == Op::MulMatId) pullNext(Op::Mul, true);
            if (op(j) == Op::Add && op(j - 1) == Op::MulMat) pullNext(Op::Add, true);
            if (op(j) == Op::Add && op(j - 1) == Op::SsmConv) pullNext(Op::Unary, false);
            // v0.5.0 UNARY + MUL: the MUL reading the UNARY (either side) comes along when its
            // other source is a weight or placed and the pair fuses.
            if (v050 && op(j) == Op::Unary)
                for (int k = j + 1; k < std::min(j + 15, n); ++k) {
                    const Tensor& tk = t[at(k)];
                    if (tk.op != Op::Mul || (tk.src[0] != at(j) && tk.src[1] != at(j))) continue;
                    const Id other = tk.src[0] == at(j) ? tk.src[1] : tk.src[0];
                    if (other == kNone || !(t[other].op == Op::None || placed(other))) continue;
                    if (!canFuseUnaryMul(j, k)) continue;
                    set.push_back(k);
                    used[U(k)] = true;
                    break;
                }
        }
        // The views, unless the set ends in an ADD (add -> rms_norm, add -> add fusions).
        if (op(set.back()) != Op::Add)
            for (int j = first + 1; j < last; ++j) {
                if (used[U(j)] || !(empty_at[U(j)] != 0)) continue;
                bool ok = true;
                for (int c = j - 1; c >= first && ok; --c)
                    if (!used[U(c)] && isSrcOf(j, c) &&
                        std::find(set.begin(), set.end(), c) == set.end())
                        ok = false;
                if (ok) set.push_back(j);
            }
        for (const int c : set) {
            order.push_back(at(c));
            ordered[U(c)] = true;
            used[U(c)] = true;
        }
        while (first < n && used[U(first)])
            ++first;
    }
    for (const Id x : nodes)
        pos[static_cast<size_t>(x)] = -1;
    nodes.assign(order.begin(), order.end());
}

} // namespace

std::vector<BackendCompute> replaySchedule(const Graph& g, const SchedPlacement& p) {
    const int n_back = static_cast<int>(p.buffers.size());
    if (n_back == 0) return {};
    const int cpu = n_back - 1;
    const Id W = g.weight();
    // The split pass rewires sources to their copies, so it works on a copy of the tensors (kept
    // per thread: a replay a plan makes many of should not map fresh pages each time).
    thread_local std::vector<Tensor> t;
    t.reserve(g.tensors().size() + g.tensors().size() / 2 + 64);
    t.assign(g.tensors().begin(), g.tensors().end());
    const std::vector<Id>& nodes = g.nodes();
    const auto n_layer = static_cast<std::int32_t>(p.layer_backend.size());

    // Caches follow their block (llama_kv_cache and llama_memory_recurrent put a layer's cells on
    // its device), the output layer its own backend, the inputs the CPU.
    auto layerBackend = [&](std::int32_t il) {
        if (il < 0) return cpu;
        if (il >= n_layer) return p.output_backend;
        return p.layer_backend[static_cast<size_t>(il)];
    };
    // The weight a node reads: token_embd on the CPU (llama_model::load_tensors keeps the input
    // layer there), routed experts where --n-cpu-moe / -ot put them, the rest with its block.
    auto isExpert = [](const Tensor& n) { return n.op == Op::MulMatId || n.op == Op::AddId; };
    auto weightBackend = [&](const Tensor& n) {
        if (n.layer < 0) return cpu;
        if (n.layer >= n_layer) return p.output_backend;
        const auto il = static_cast<size_t>(n.layer);
        if (n.ffn && il < p.ffn_backend.size()) return p.ffn_backend[il];
        return isExpert(n) && il < p.expert_backend.size() ? p.expert_backend[il]
                                                           : p.layer_backend[il];
    };
    // The stand-in, or a weight of its own (Graph::ownWeight) in the reading block's buffer.
    auto hasWeight = [&](const Tensor& n) {
        return std::any_of(n.src.begin(), n.src.end(),
                           [&](Id s) { return s == W || (s != kNone && t[s].weight); });
    };

    // The bytes a weight's copy takes: its block's weight bytes shared by element count.
    std::vector<std::int64_t> dense_el(static_cast<size_t>(n_layer) + 1, 0);
    std::vector<std::int64_t> expert_el(static_cast<size_t>(n_layer) + 1, 0);
    auto slot = [&](const Tensor& n) {
        return static_cast<size_t>(std::clamp<std::int32_t>(n.layer, 0, n_layer));
    };
    // Small weights (norms, biases, kernels: f32) are sized by their shape; the matrices share
    // what is left of their block's bytes.
    auto smallWeightBytes = [](const Tensor& n) -> Bytes {
        return n.weight_bytes > 0 ? n.weight_bytes
                                  : 4 * static_cast<Bytes>(std::max<std::int64_t>(1, n.ne[0]));
    };
    std::vector<Bytes> dense_small(static_cast<size_t>(n_layer) + 1, 0);
    std::vector<Bytes> expert_small(static_cast<size_t>(n_layer) + 1, 0);
    for (const Id n : nodes) {
        if (!hasWeight(t[n]) || t[n].layer < 0) continue;
        const std::int64_t el = weightElements(t, t[n], p.n_expert);
        if (el > 0)
            (isExpert(t[n]) ? expert_el : dense_el)[slot(t[n])] += el;
        else
            (isExpert(t[n]) ? expert_small : dense_small)[slot(t[n])] += smallWeightBytes(t[n]);
    }
    auto weightCopyBytes = [&](const Tensor& n) -> Bytes {
        const std::int64_t el = weightElements(t, n, p.n_expert);
        if (el == 0) return smallWeightBytes(n);
        const size_t i = slot(n);
        if (i < p.matrices.size() && n.src[1] != kNone) {
            // The largest of the block's weights with this product's widths: never low where
            // two of them share a shape but not a type.
            const std::int64_t in = t[n.src[1]].ne[0];
            Bytes own = 0;
            for (const SchedPlacement::Matrix& w : p.matrices[i])
                if (w.in == in && w.out == n.ne[0] && w.experts == isExpert(n))
                    own = std::max(own, w.bytes);
            if (own > 0) return own;
        }
        const auto& total = isExpert(n) ? p.expert_bytes : p.dense_bytes;
        const auto& small = isExpert(n) ? expert_small : dense_small;
        const auto& sum = isExpert(n) ? expert_el : dense_el;
        if (i >= total.size() || sum[i] == 0) return 0;
        const Bytes matrices = total[i] > small[i] ? total[i] - small[i] : total[i];
        return static_cast<Bytes>(static_cast<long double>(matrices) *
                                  static_cast<long double>(el) / static_cast<long double>(sum[i]));
    };

    // ggml_backend_sched_split_graph (ggml/src/ggml-backend.cpp), pass 1: pre-allocated tensors
    // (caches, their views and writes) stay where their memory is, graph inputs go to the last
    // backend, an op goes where its first weight is, or to the first device that offloads it
    // (op_offload, a host weight, ggml_backend_vk_device_offload_op); ROPE and FLASH_ATTN_EXT are
    // not placed by weights.
    std::vector<int> be(t.size(), -1);
    auto cacheBackend = [&](const Tensor& x) {
        return p.kv_on_host && !x.weight ? cpu : layerBackend(x.layer);
    };
    for (const Id l : g.leafs()) {
        if (l == W) continue;
        if (t[l].external)
            be[l] = cacheBackend(t[l]);
        else if (t[l].input)
            be[l] = cpu;
    }
    for (const Id n : nodes) {
        const Tensor& tn = t[n];
        if (p.pin_norms && tn.layer_norm_pin && tn.layer >= 0 && tn.layer < n_layer) {
            be[n] = layerBackend(tn.layer);
            continue;
        }
        if (tn.external) {
            be[n] = cacheBackend(tn);
            continue;
        }
        if (p.kv_on_host && tn.kqv_out) {
            be[n] = cpu;
            continue;
        }
        if (tn.input) {
            be[n] = cpu;
            continue;
        }
        if (tn.op == Op::Rope || tn.op == Op::FlashAttn || !hasWeight(tn)) continue;
        const int wb = weightBackend(tn);
        be[n] = wb;
        const bool offloadable =
            !p.offload_matmul_only || tn.op == Op::MulMat || tn.op == Op::MulMatId;
        if (p.op_offload && offloadable && wb == cpu && cpu > 0 &&
            opBatch(tn) >= p.offload_min_batch)
            be[n] = 0;
    }
    // Pass 2: the devices' assignments expand down and up over unassigned nodes, the CPU's
    // stopping them; then every backend's, down and up.
    auto expand = [&](bool down, bool with_cpu) {
        int cur = -1;
        for (size_t k = 0; k < nodes.size(); ++k) {
            const Id n = nodes[down ? k : nodes.size() - 1 - k];
            if (isViewOp(t[n].op)) continue;
            if (be[n] != -1)
                cur = (!with_cpu && be[n] == cpu) ? -1 : be[n];
            else if (cur != -1)
                be[n] = cur;
        }
    };
    expand(true, false);
    expand(false, false);
    expand(true, true);
    expand(false, true);
    // Pass 4: views on their source's backend; anything left on the first backend.
    for (const Id n : nodes) {
        if (be[n] == -1 && t[n].view_src != kNone) be[n] = be[t[n].view_src];
        if (be[n] == -1) be[n] = 0;
    }
    // An op the device refuses for a tensor's size goes to the CPU (the scheduler's last resort,
    // ggml_backend_sched_split_graph pass 4: the first backend that supports it).
    if (!p.max_tensor_bytes.empty())
        for (const Id n : nodes) {
            if (be[n] < 0 || be[n] == cpu ||
                static_cast<size_t>(be[n]) >= p.max_tensor_bytes.size())
                continue;
            const Bytes limit = p.max_tensor_bytes[static_cast<size_t>(be[n])];
            if (limit == 0 || isViewOp(t[n].op) || t[n].external) continue;
            auto size = [&](Id x) { return t[x].copy_bytes > 0 ? t[x].copy_bytes : nbytes(t[x]); };
            bool big = size(n) > limit;
            for (const Id s : t[n].src)
                big = big || (s != kNone && s != W && !t[s].weight && size(s) > limit);
            if (big) be[n] = cpu;
        }
    // A weight of its own is read from the reading block's buffer.
    auto srcBackend = [&](const Tensor& n, Id s) {
        return s == W || t[s].weight ? weightBackend(n) : be[s];
    };

    // Pass 5: splits. A source on another backend (no backend here reads another's buffers) is
    // copied into the split's backend once (ggml_dup_tensor_layout), the copy an input of the
    // split; a weight read from another backend starts a new split so its copy's memory is
    // reused by the next one. Under pipeline parallelism every copy is made n_copies times and
    // kept (input and output), and so are the graph inputs.
    // A split's inputs are split_inputs[in_begin, in_end): one list for all splits, filled in
    // order, rather than a vector each (a graph has hundreds of splits).
    struct Split {
        int backend = 0;
        size_t start = 0, end = 0;
        size_t in_begin = 0, in_end = 0;
    };
    std::vector<Split> splits;
    thread_local std::vector<std::pair<Id, Id>> split_inputs; // source, copy
    split_inputs.clear();
    std::vector<std::pair<Id, int>> kept_copies; // pipeline copies, allocated first as leafs
    // The copy of a source in a backend (tensor_id_copy), keyed by source and backend.
    // Kept per thread, one slot per graph tensor and backend: kNone where none was made yet.
    thread_local std::vector<Id> copy_of;
    const size_t n_graph = g.tensors().size();
    copy_of.assign(n_graph * static_cast<size_t>(n_back), kNone);
    auto copySlot = [&](Id src, int backend) -> Id& {
        return copy_of[static_cast<size_t>(src) * static_cast<size_t>(n_back) +
                       static_cast<size_t>(backend)];
    };
    std::vector<std::uint8_t> input_copied(t.size(), 0);
    const int n_copies = std::max(1, p.n_copies);
    // A copy of a graph tensor has its source's layout (ggml_dup_tensor_layout), so the split's
    // first consumer may reuse it in place (ggml_gallocr_allocate_node: the copy is the
    // scheduler's, not an output); weights and cache views are copied as bytes.
    auto newCopy = [&](Bytes bytes, bool keep, Id like = kNone) {
        Tensor c;
        c.type = Elem::I8;
        c.ne = {static_cast<std::int64_t>(bytes), 1, 1, 1};
        if (like != kNone) {
            c.type = t[like].type;
            c.ne = t[like].ne;
        }
        contiguous(c);
        c.input = c.output = keep;
        t.push_back(c);
        be.push_back(-1);
        input_copied.push_back(false);
        return static_cast<Id>(t.size() - 1);
    };
    size_t i = 0;
    while (i < nodes.size() && isViewOp(t[nodes[i]].op))
        ++i;
    splits.push_back({i < nodes.size() ? be[nodes[i]] : 0, 0, 0, 0, 0});
    for (; i < nodes.size(); ++i) {
        const Id n = nodes[i];
        if (isViewOp(t[n].op)) continue;
        Split* sp = &splits.back();
        bool new_split = be[n] != sp->backend;
        if (!new_split && split_inputs.size() > sp->in_begin)
            for (const Id s : t[n].src)
                if ((s == W && weightBackend(t[n]) != sp->backend) ||
                    (s != kNone && t[s].weight && srcBackend(t[n], s) != sp->backend))
                    new_split = true;
        if (new_split) {
            sp->end = i;
            sp->in_end = split_inputs.size();
            splits.push_back({be[n], i, 0, split_inputs.size(), split_inputs.size()});
            sp = &splits.back();
        }
        const int cur = sp->backend;
        // newCopy grows t: index it afresh after each copy.
        for (size_t j = 0; j < t[n].src.size(); ++j) {
            const Id s = t[n].src[j];
            if (s == kNone) continue;
            const int sb = srcBackend(t[n], s);
            if (t[s].input && n_copies > 1 && !input_copied[s]) {
                input_copied[s] = true;
                t[s].output = true; // the original is the current copy
                for (int c = 1; c < n_copies; ++c) {
                    const Id extra = newCopy(nbytes(t[s]), true);
                    kept_copies.emplace_back(extra, sb);
                }
            }
            if (sb == cur) continue;
            const Id known = static_cast<size_t>(s) < n_graph ? copySlot(s, cur) : kNone;
            if (s != W && known != kNone) {
                t[n].src[j] = known;
                continue;
            }
            const Bytes bytes = s == W                ? weightCopyBytes(t[n])
                                : t[s].copy_bytes > 0 ? t[s].copy_bytes
                                                      : layoutBytes(t[s]);
            const bool same =
                s != W && t[s].copy_bytes == 0 && !t[s].weight && bytes == nbytes(t[s]);
            const Id first = newCopy(bytes, n_copies > 1, same ? s : kNone);
            for (int c = 1; c < n_copies; ++c) {
                const Id extra = newCopy(bytes, true);
                kept_copies.emplace_back(extra, cur);
            }
            if (n_copies > 1) kept_copies.emplace_back(first, cur);
            split_inputs.emplace_back(s, first);
            if (s != W && static_cast<size_t>(s) < n_graph) copySlot(s, cur) = first;
            t[n].src[j] = first;
        }
    }
    splits.back().end = nodes.size();
    splits.back().in_end = split_inputs.size();

    // What each tensor views (its own id when none): the skeletons' external writes have the one
    // weight tensor as view_src when they name no cache, and are then their own base.
    const bool reorder = p.vulkan_reorder != VulkanReorder::Off;
    std::vector<Id> base_of(reorder ? t.size() : 0);
    for (size_t x = 0; x < base_of.size(); ++x) {
        const Id v = t[x].view_src;
        base_of[x] = v != kNone && v != W ? v : static_cast<Id>(x);
    }
    // Each tensor's consumers in the graph as built (ggml_visit_parents counts cgraph->use_counts
    // before the scheduler rewires sources to copies).
    std::vector<int> use_count(reorder ? t.size() : 0, 0);
    if (reorder)
        for (const Id n : nodes)
            for (const Id s : g.tensors()[static_cast<size_t>(n)].src)
                if (s != kNone) ++use_count[static_cast<size_t>(s)];
    std::vector<std::pair<Id, std::vector<Id>>> deps;
    // The scheduler's graph copy: per split, each input's dependency (a GGML_OP_NONE view of the
    // source on its backend, which keeps it until the copy) and its copy, then the split's nodes.
    std::vector<Id> out_nodes, out_leafs;
    std::vector<int> node_buf, leaf_buf;
    std::vector<Id> split_nodes;
    for (const Split& sp : splits) {
        for (size_t k = sp.in_begin; k < sp.in_end; ++k) {
            const auto [src, cpy] = split_inputs[k];
            if (!t[src].external) {
                Tensor dep;
                dep.type = t[src].type;
                dep.ne = t[src].ne;
                dep.nb = t[src].nb;
                dep.view_src = t[src].view_src != kNone ? t[src].view_src : src;
                dep.src[0] = src;
                const int dep_backend = be[src];
                t.push_back(dep);
                out_nodes.push_back(static_cast<Id>(t.size() - 1));
                node_buf.push_back(std::max(0, dep_backend));
            }
            out_nodes.push_back(cpy);
            node_buf.push_back(sp.backend);
        }
        split_nodes.assign(nodes.begin() + static_cast<std::ptrdiff_t>(sp.start),
                           nodes.begin() + static_cast<std::ptrdiff_t>(sp.end));
        deps.clear();
        if (reorder && sp.backend != cpu)
            vkGraphOptimize(t, base_of, use_count, p.vulkan_reorder, split_nodes, deps);
        for (const Id n : split_nodes) {
            out_nodes.push_back(n);
            node_buf.push_back(be[n]);
            const auto d =
                std::find_if(deps.begin(), deps.end(), [n](const auto& e) { return e.first == n; });
            if (d == deps.end()) continue;
            // ggml_backend_sched_split_graph: after `until`, a GGML_OP_NONE view of the first kept
            // tensor with them as sources (one per GGML_MAX_SRC of them), which ggml-alloc does
            // not count as a view (ggml_gallocr_alloc_graph_impl): only its sources' children
            // count, so how they are grouped does not matter.
            const std::vector<Id>& keep = d->second;
            constexpr size_t kSrc = std::tuple_size_v<decltype(Tensor::src)>;
            for (size_t k = 0; k < keep.size(); k += kSrc) {
                Tensor dep;
                const Tensor& head = t[static_cast<size_t>(keep[k])];
                dep.type = head.type;
                dep.ne = head.ne;
                dep.nb = head.nb;
                dep.view_src = head.view_src != kNone ? head.view_src : keep[k];
                for (size_t s = k; s < keep.size() && s - k < kSrc; ++s)
                    dep.src[s - k] = keep[s];
                t.push_back(dep);
                out_nodes.push_back(static_cast<Id>(t.size() - 1));
                node_buf.push_back(sp.backend);
            }
        }
    }
    for (const auto& [c, b] : kept_copies) {
        out_leafs.push_back(c);
        leaf_buf.push_back(b);
    }
    for (const Id l : g.leafs()) {
        out_leafs.push_back(l);
        leaf_buf.push_back(l == W || be[l] < 0 ? cpu : be[l]);
    }

    std::vector<Tallocr> tallocs;
    tallocs.reserve(static_cast<size_t>(n_back));
    for (const BufferType& b : p.buffers)
        tallocs.emplace_back(b.alignment, b.max_size, b.flash_attn_f16_copies);
    thread_local std::vector<HashNode> hash;
    Replay r(t, out_leafs, out_nodes, leaf_buf, node_buf, tallocs, hash);
    r.run();
    std::vector<BackendCompute> out;
    out.reserve(tallocs.size());
    for (const Tallocr& a : tallocs)
        out.push_back(a.total());
    return out;
}

} // namespace headroom::graph
