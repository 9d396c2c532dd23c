#include "compute_graph.h"

#include <algorithm>
#include <limits>

namespace headroom::graph {

Bytes elemSize(Elem e) {
    switch (e) {
    case Elem::F16:
        return 2;
    case Elem::I64:
        return 8;
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

Id Graph::add(Tensor t) {
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

Id Graph::mulMat(Id w, Id x) {
    const Tensor& tw = t_[w];
    const Tensor& tx = t_[x];
    return op(Op::MulMat, Elem::F32, {tw.ne[1], tx.ne[1], tx.ne[2], tx.ne[3]}, {w, x});
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

Id Graph::externalNode(Op o, std::initializer_list<Id> srcs) {
    Tensor t;
    t.op = o;
    t.external = true;
    t.view_src = weight_;
    size_t i = 0;
    for (const Id s : srcs)
        if (i < t.src.size()) t.src[i++] = s;
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

// ggml_dyn_tallocr with one chunk: free blocks sorted by offset, the last one unbounded.
class Tallocr {
public:
    explicit Tallocr(Bytes alignment) : align_(std::max<Bytes>(1, alignment)) {
        blocks_.push_back({0, std::numeric_limits<Bytes>::max() / 2});
    }
    Bytes padded(Bytes size) const { return ceilDiv(size, align_) * align_; }

    // ggml_dyn_tallocr_alloc: the best-fitting block other than the last (ties go to the later
    // block), else the last.
    Bytes alloc(Bytes size) {
        size = padded(size);
        size_t best = blocks_.size() - 1;
        Bytes best_size = std::numeric_limits<Bytes>::max();
        for (size_t i = 0; i + 1 < blocks_.size(); ++i)
            if (blocks_[i].size >= size && blocks_[i].size <= best_size) {
                best = i;
                best_size = blocks_[i].size;
            }
        Block& b = blocks_[best];
        const Bytes off = b.off;
        b.off += size;
        b.size -= size;
        if (b.size == 0) blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
        max_ = std::max(max_, off + size);
        return off;
    }

    // ggml_dyn_tallocr_free_bytes: merge with the block that ends here or starts after it.
    void free(Bytes off, Bytes size) {
        size = padded(size);
        for (size_t i = 0; i < blocks_.size(); ++i) {
            Block& b = blocks_[i];
            if (b.off + b.size == off) {
                b.size += size;
                if (i + 1 < blocks_.size() && b.off + b.size == blocks_[i + 1].off) {
                    b.size += blocks_[i + 1].size;
                    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i + 1));
                }
                return;
            }
            if (off + size == b.off) {
                b.off = off;
                b.size += size;
                if (i > 0 && blocks_[i - 1].off + blocks_[i - 1].size == b.off) {
                    blocks_[i - 1].size += b.size;
                    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
                }
                return;
            }
        }
        size_t pos = 0;
        while (pos < blocks_.size() && blocks_[pos].off < off)
            ++pos;
        blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(pos), Block{off, size});
    }
    Bytes max() const { return max_; }

private:
    Bytes align_;
    Bytes max_ = 0;
    std::vector<Block> blocks_;
};

struct HashNode {
    int n_children = 0;
    int n_views = 0;
    bool allocated = false;
    Bytes off = 0;
};

class Replay {
public:
    Replay(const Graph& g, Bytes alignment)
        : g_(g), t_(g.tensors()), h_(g.tensors().size()), a_(alignment) {}

    Bytes run() {
        for (const Id leaf : g_.leafs())
            allocate(leaf);
        for (const Id n : g_.nodes()) {
            const Tensor& t = t_[n];
            if (t.view_src != kNone && t.op != Op::None) h_[t.view_src].n_views++;
            if (t.input) allocate(n);
            for (const Id s : t.src) {
                if (s == kNone) continue;
                h_[s].n_children++;
                if (t_[s].input) allocate(s);
            }
        }
        for (const Id n : g_.nodes()) {
            const Tensor& t = t_[n];
            for (const Id s : t.src)
                if (s != kNone) allocate(s);
            allocate(n);
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
        return a_.max();
    }

private:
    bool isAllocated(Id id) const { return t_[id].external || h_[id].allocated; }

    // ggml_gallocr_allocate_node.
    void allocate(Id id) {
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
                        hn.off = ph.off;
                        ph.allocated = false;
                        vh.allocated = false;
                        freeExtra(t, t_[tp.view_src], ph.off);
                        return;
                    }
                } else {
                    hn.off = ph.off;
                    ph.allocated = false;
                    freeExtra(t, tp, ph.off);
                    return;
                }
            }
        }
        hn.off = a_.alloc(nbytes(t));
    }

    // ggml_gallocr_free_extra_space.
    void freeExtra(const Tensor& node, const Tensor& parent, Bytes off) {
        const Bytes ps = a_.padded(nbytes(parent));
        const Bytes ns = a_.padded(nbytes(node));
        if (ps > ns) a_.free(off + ns, ps - ns);
    }

    // ggml_gallocr_free_node: graph outputs are never freed.
    void release(Id id) {
        if (t_[id].output) return;
        HashNode& hn = h_[id];
        a_.free(hn.off, nbytes(t_[id]));
        hn.allocated = false;
    }

    const Graph& g_;
    const std::vector<Tensor>& t_;
    std::vector<HashNode> h_;
    Tallocr a_;
};

} // namespace

Bytes replayPeak(const Graph& g, Bytes alignment) {
    Replay r(g, alignment);
    return r.run();
}

} // namespace headroom::graph
