// dev tool: LD_PRELOAD hook on ggml_gallocr_reserve_n. ggml_backend_sched_reserve calls it inside
// libggml-base with the scheduler's graph copy, after the splits and every backend's graph_optimize
// (ggml/src/ggml-backend.cpp, ggml_backend_sched_split_graph and ggml_backend_sched_alloc_splits).
// So it sees the node order ggml-alloc really packs, which tests/validation/peak.cpp's hook on
// ggml_backend_sched_reserve (the graph before splitting) does not. It replays ggml-alloc per
// buffer id (ggml/src/ggml-alloc.c, ggml_gallocr_alloc_graph_impl over ggml_dyn_tallocr: the same
// rules as peak.cpp, one allocator per buffer id, a tensor reusing its parent in place keeping the
// parent's buffer). Per reserved graph and buffer it prints the peak, the tensors alive at it, the
// high-water mark before the last node (the logits) and the free blocks at that point. A zero-size
// block among them is the trace of a zero-byte tensor freed where no free block adjoined it.
// Environment: HEADROOM_REPLAY_LOG=FILE (default stderr); HEADROOM_REPLAY_DUMP=FILE writes each
// graph with more than 100 nodes, one line per leaf/node, with its buffer id;
// HEADROOM_REPLAY_ALIGN0 sets buffer 0's alignment (default 32; lavapipe's
// minStorageBufferOffsetAlignment is 16); HEADROOM_REPLAY_TRACE=FILE writes every allocation,
// in-place reuse and free ("A|I|F node bBUFFER OP bytes @offset"), to compare allocation by
// allocation with core/compute_graph.cpp's replay.
#define _GNU_SOURCE 1
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-impl.h"
#include "ggml.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <string>
#include <vector>

#include "../ggml_alloc_sim.h"

static const int kBuffers = 8;

// Memory outside the buffers being reserved: weights, caches and their views.
static bool external(const ggml_tensor* t) {
    return t->data || (t->view_src && t->view_src->data);
}

struct Sim {
    std::map<const ggml_tensor*, HN> h;
    std::map<const ggml_tensor*, int> idx;
    Alloc A[kBuffers];
    std::map<const ggml_tensor*, size_t> live[kBuffers];
    size_t peak[kBuffers] = {};
    int peak_node[kBuffers] = {};
    std::string desc[kBuffers];
    size_t before_last[kBuffers] = {};
    std::string free_at_last[kBuffers];
    int cur = 0;
    int last = 0;
    FILE* trace = nullptr;

    void snap(int b) {
        if (A[b].max_size <= peak[b]) return;
        peak[b] = A[b].max_size;
        peak_node[b] = cur;
        std::vector<std::pair<size_t, const ggml_tensor*>> v;
        for (auto& [t, s] : live[b])
            v.push_back({s, t});
        std::sort(v.rbegin(), v.rend());
        char buf[320];
        size_t sum = 0;
        for (auto& x : v)
            sum += A[b].al(x.first);
        snprintf(buf, sizeof buf, "live_sum=%zu n=%zu:", sum, v.size());
        desc[b] = buf;
        for (size_t i = 0; i < v.size() && i < 16; ++i) {
            const ggml_tensor* t = v[i].second;
            snprintf(buf, sizeof buf, "\n   N%d %s [%s %lld,%lld,%lld,%lld] %zu B at %zu",
                     idx.count(t) ? idx[t] : -1, t->name, OD(t), (long long)t->ne[0],
                     (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3], v[i].first,
                     h[t].off);
            desc[b] += buf;
        }
    }
    // ggml_gallocr_allocate_node.
    void allocate(ggml_tensor* node, int b) {
        HN& hn = h[node];
        if (external(node) || hn.allocated || node->view_src) return;
        hn.allocated = true;
        if (can_inplace(node->op))
            for (int i = 0; i < GGML_MAX_SRC; ++i) {
                ggml_tensor* p = node->src[i];
                // ggml_gallocr_is_own: only a tensor ggml-alloc allocated itself, never a view.
                if (!p || external(p) || !h[p].allocated) continue;
                if (p->flags & GGML_TENSOR_FLAG_OUTPUT ||
                    (p->view_src && p->view_src->flags & GGML_TENSOR_FLAG_OUTPUT))
                    continue;
                if (!same_layout(node, p)) continue;
                HN& ph = h[p];
                if (ph.n_children != 1 || ph.n_views != 0) continue;
                ggml_tensor* root = p->view_src ? p->view_src : p;
                if (p->view_src) {
                    HN& vh = h[p->view_src];
                    if (!(vh.n_views == 1 && vh.n_children == 0 && ph.off == vh.off)) continue;
                    vh.allocated = false;
                }
                hn.off = h[root].off;
                hn.buf = h[root].buf;
                if (trace)
                    fprintf(trace, "I %d b%d %s %zu @%zu\n", idx.count(node) ? idx[node] : -1,
                            hn.buf, OD(node), NB(node), hn.off);
                ph.allocated = false;
                const int pb = hn.buf;
                const size_t ps = A[pb].al(NB(root)), ns = A[pb].al(NB(node));
                live[pb].erase(root);
                live[pb][node] = ns;
                if (ps > ns) A[pb].free_(hn.off + ns, ps - ns);
                return;
            }
        if (cur == last && before_last[b] == 0) {
            before_last[b] = A[b].max_size;
            char s[64];
            for (const Blk& x : A[b].fb) {
                snprintf(s, sizeof s, " [%zu+%zu]", x.off, x.size > (size_t)1e15 ? 0 : x.size);
                free_at_last[b] += s;
            }
        }
        hn.buf = b;
        hn.off = A[b].alloc(NB(node));
        if (trace)
            fprintf(trace, "A %d b%d %s %zu @%zu max%zu\n", idx.count(node) ? idx[node] : -1, b,
                    OD(node), NB(node), hn.off, A[b].max_size);
        live[b][node] = NB(node);
        snap(b);
    }
    // ggml_gallocr_free_node: graph outputs are never freed.
    void free_node(ggml_tensor* n) {
        if (n->flags & GGML_TENSOR_FLAG_OUTPUT) return;
        HN& hn = h[n];
        if (trace)
            fprintf(trace, "F %d b%d %s %zu @%zu\n", idx.count(n) ? idx[n] : -1, hn.buf, OD(n),
                    NB(n), hn.off);
        A[hn.buf].free_(hn.off, NB(n));
        hn.allocated = false;
        live[hn.buf].erase(n);
    }
    void run(ggml_cgraph* g, const int* nbid, const int* lbid) {
        auto bid = [](const int* ids, int i) {
            const int b = ids ? ids[i] : 0;
            return b >= 0 && b < kBuffers ? b : 0;
        };
        last = g->n_nodes - 1;
        for (int i = 0; i < g->n_nodes; ++i)
            idx[g->nodes[i]] = i;
        for (int i = 0; i < g->n_leafs; ++i)
            allocate(g->leafs[i], bid(lbid, i));
        for (int i = 0; i < g->n_nodes; ++i) {
            ggml_tensor* n = g->nodes[i];
            if (n->view_src && n->op != GGML_OP_NONE) h[n->view_src].n_views++;
            if (n->flags & GGML_TENSOR_FLAG_INPUT) allocate(n, bid(nbid, i));
            for (int j = 0; j < GGML_MAX_SRC; ++j) {
                ggml_tensor* s = n->src[j];
                if (!s) continue;
                h[s].n_children++;
                if (s->flags & GGML_TENSOR_FLAG_INPUT) allocate(s, bid(nbid, i));
            }
        }
        for (int i = 0; i < g->n_nodes; ++i) {
            cur = i;
            ggml_tensor* n = g->nodes[i];
            for (int j = 0; j < GGML_MAX_SRC; ++j)
                if (n->src[j]) allocate(n->src[j], bid(nbid, i));
            allocate(n, bid(nbid, i));
            for (int j = 0; j < GGML_MAX_SRC; ++j) {
                ggml_tensor* p = n->src[j];
                if (!p) continue;
                HN& ph = h[p];
                ph.n_children--;
                if (ph.n_children != 0 || ph.n_views != 0) continue;
                if (p->view_src) {
                    HN& vh = h[p->view_src];
                    vh.n_views--;
                    if (vh.n_views == 0 && vh.n_children == 0 && vh.allocated)
                        free_node(p->view_src);
                } else if (ph.allocated) {
                    free_node(p);
                }
            }
        }
    }
};

static void dump_graph(ggml_cgraph* g, const int* nbid, const int* lbid) {
    const char* path = getenv("HEADROOM_REPLAY_DUMP");
    if (!path) return;
    std::map<const ggml_tensor*, std::string> id;
    for (int i = 0; i < g->n_leafs; ++i)
        id[g->leafs[i]] = "L" + std::to_string(i);
    for (int i = 0; i < g->n_nodes; ++i)
        id[g->nodes[i]] = "N" + std::to_string(i);
    auto ref = [&](const ggml_tensor* t) -> std::string {
        if (!t) return "-";
        auto it = id.find(t);
        return it != id.end() ? it->second : std::string("W:") + t->name;
    };
    FILE* f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "GRAPH leafs=%d nodes=%d\n", g->n_leafs, g->n_nodes);
    auto line = [&](const char* kind, int i, int b, const ggml_tensor* t) {
        fprintf(f, "%s%d b%d %s %s t%d [%lld,%lld,%lld,%lld] %zu B fl%d ext%d v=%s", kind, i, b,
                t->name, OD(t), (int)t->type, (long long)t->ne[0], (long long)t->ne[1],
                (long long)t->ne[2], (long long)t->ne[3], NB(t), (int)t->flags, external(t) ? 1 : 0,
                ref(t->view_src).c_str());
        for (int j = 0; j < GGML_MAX_SRC; ++j)
            if (t->src[j]) fprintf(f, " %s", ref(t->src[j]).c_str());
        fprintf(f, "\n");
    };
    for (int i = 0; i < g->n_leafs; ++i)
        line("L", i, lbid ? lbid[i] : 0, g->leafs[i]);
    for (int i = 0; i < g->n_nodes; ++i)
        line("N", i, nbid ? nbid[i] : 0, g->nodes[i]);
    fclose(f);
}

extern "C" bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph* g,
                                       const int* nbid, const int* lbid) {
    static auto real = (bool (*)(ggml_gallocr_t, ggml_cgraph*, const int*, const int*))dlsym(
        H(), "ggml_gallocr_reserve_n");
    if (g->n_nodes > 100) {
        dump_graph(g, nbid, lbid);
        Sim s;
        if (const char* a = getenv("HEADROOM_REPLAY_ALIGN0"))
            s.A[0].align = strtoul(a, nullptr, 10);
        if (const char* tp = getenv("HEADROOM_REPLAY_TRACE")) {
            s.trace = fopen(tp, "a");
            if (s.trace) fprintf(s.trace, "GRAPH %d\n", g->n_nodes);
        }
        s.run(g, nbid, lbid);
        if (s.trace) fclose(s.trace);
        const char* path = getenv("HEADROOM_REPLAY_LOG");
        FILE* f = fopen(path ? path : "/dev/stderr", "a");
        if (f) {
            for (int b = 0; b < kBuffers; ++b) {
                if (!s.peak[b]) continue;
                const ggml_tensor* pn = g->nodes[s.peak_node[b]];
                fprintf(f,
                        "RESERVE nodes=%d buf%d peak=%zu at node %d (%s %s) before_last=%zu: %s\n",
                        g->n_nodes, b, s.peak[b], s.peak_node[b], pn->name, OD(pn),
                        s.before_last[b], s.desc[b].c_str());
                if (!s.free_at_last[b].empty())
                    fprintf(f, "   free blocks before the last node:%s\n",
                            s.free_at_last[b].c_str());
            }
            fclose(f);
        }
    }
    return real(galloc, g, nbid, lbid);
}
