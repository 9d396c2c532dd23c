// dev tool: LD_PRELOAD hook on ggml_backend_sched_reserve that replays ggml-alloc's graph
// allocation (ggml-alloc.c ggml_gallocr_alloc_graph_impl + ggml_dyn_tallocr) and prints the peak,
// the tensors alive at it and where result_norm's storage was allocated (NORM-ORIGIN). With
// PEAK_TRACE=N it also traces every allocation and free of the last N nodes to stderr.
#define _GNU_SOURCE 1
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

#include "ggml_alloc_sim.h"

static const size_t ALIGN = 32;
static size_t al(size_t s) {
    return (s + ALIGN - 1) / ALIGN * ALIGN;
}
struct Sim {
    std::map<const ggml_tensor*, HN> h;
    Alloc A;
    std::map<const ggml_tensor*, size_t> live;
    size_t peak = 0;
    std::string peak_desc;
    int peak_node = -1;
    int cur = 0;
    std::string extra;
    bool trace = false;
    int trace_from = 0;
    std::map<size_t, std::string> hist;
    bool is_alloc(ggml_tensor* t) { return t->data || t->buffer || h[t].allocated; }
    void snapshot() {
        if (A.max_size <= peak) return;
        peak = A.max_size;
        peak_node = cur;
        std::vector<std::pair<size_t, const ggml_tensor*>> v;
        for (auto& [t, s] : live)
            v.push_back({s, t});
        std::sort(v.rbegin(), v.rend());
        char buf[256];
        peak_desc.clear();
        size_t sum = 0;
        for (auto& x : v)
            sum += al(x.first);
        snprintf(buf, sizeof buf, "live_sum=%zu n=%zu: ", sum, v.size());
        peak_desc = buf;
        for (size_t i = 0; i < v.size() && i < 14; ++i) {
            snprintf(buf, sizeof buf, "%s[%s %lld,%lld,%lld,%lld]=%zu ", v[i].second->name,
                     OD(v[i].second), (long long)v[i].second->ne[0], (long long)v[i].second->ne[1],
                     (long long)v[i].second->ne[2], (long long)v[i].second->ne[3], v[i].first);
            peak_desc += buf;
        }
    }
    void allocate(ggml_tensor* node) {
        HN& hn = h[node];
        if (is_alloc(node) || node->view_src) return;
        hn.allocated = true;
        if (can_inplace(node->op))
            for (int i = 0; i < GGML_MAX_SRC; ++i) {
                ggml_tensor* p = node->src[i];
                if (!p) continue;
                if (!h[p].allocated) continue;
                if (p->flags & GGML_TENSOR_FLAG_OUTPUT ||
                    (p->view_src && p->view_src->flags & GGML_TENSOR_FLAG_OUTPUT))
                    continue;
                if (!same_layout(node, p)) continue;
                HN& ph = h[p];
                if (ph.n_children == 1 && ph.n_views == 0) {
                    if (p->view_src) {
                        HN& vh = h[p->view_src];
                        if (vh.n_views == 1 && vh.n_children == 0 && p->view_src->data == p->data) {
                            hn.off = ph.off;
                            ph.allocated = false;
                            vh.allocated = false;
                            size_t ps = al(NB(p->view_src)), ns = al(NB(node));
                            live.erase(p->view_src);
                            live[node] = ns;
                            if (ps > ns) A.free_(ph.off + ns, ps - ns);
                            return;
                        }
                    } else {
                        hn.off = ph.off;
                        ph.allocated = false;
                        size_t ps = al(NB(p)), ns = al(NB(node));
                        live.erase(p);
                        live[node] = ns;
                        if (ps > ns) A.free_(ph.off + ns, ps - ns);
                        return;
                    }
                }
            }
        size_t before = A.max_size;
        std::string fbs;
        if (!strcmp(node->name, "result_norm") || !strcmp(node->name, "result_output")) {
            char b[64];
            for (auto& x : A.fb) {
                snprintf(b, sizeof b, "[%zu+%zu]", x.off, x.size > (size_t)1e15 ? 0 : x.size);
                fbs += b;
            }
        }
        hn.off = A.alloc(NB(node));
        live[node] = NB(node);
        snapshot();
        if (trace && cur >= trace_from)
            fprintf(stderr, "A %-24s %-10s off=%zu size=%zu\n", node->name, OD(node), hn.off,
                    NB(node));
        {
            std::string d;
            char b[200];
            snprintf(b, sizeof b, "%s@%zu: ", node->name, hn.off);
            d = b;
            for (auto& [t, sz] : live) {
                size_t o = h[t].off;
                if (t != node && o < hn.off && sz > 100000) {
                    snprintf(b, sizeof b, "%s[%s]@%zu+%zu ", t->name, OD(t), o, sz);
                    d += b;
                }
            }
            hist[hn.off] = d;
        }
        if (!fbs.empty()) {
            char b[256];
            snprintf(b, sizeof b, " {%s at %zu (max before %zu) free:", node->name, hn.off, before);
            extra += b;
            extra += fbs;
            extra += "}";
        }
    }
    void free_node(ggml_tensor* n) {
        if (n->flags & GGML_TENSOR_FLAG_OUTPUT) return;
        HN& hn = h[n];
        A.free_(hn.off, NB(n));
        hn.allocated = false;
        live.erase(n);
        if (trace && cur >= trace_from)
            fprintf(stderr, "F %-24s off=%zu size=%zu\n", n->name, hn.off, NB(n));
    }
    void run(ggml_cgraph* g) {
        for (int i = 0; i < g->n_leafs; ++i)
            allocate(g->leafs[i]);
        for (int i = 0; i < g->n_nodes; ++i) {
            ggml_tensor* n = g->nodes[i];
            if (n->view_src && n->op != GGML_OP_NONE) h[n->view_src].n_views++;
            if (n->flags & GGML_TENSOR_FLAG_INPUT) allocate(n);
            for (int j = 0; j < GGML_MAX_SRC; ++j) {
                ggml_tensor* s = n->src[j];
                if (!s) continue;
                h[s].n_children++;
                if (s->flags & GGML_TENSOR_FLAG_INPUT) allocate(s);
            }
        }
        for (int i = 0; i < g->n_nodes; ++i) {
            cur = i;
            ggml_tensor* n = g->nodes[i];
            for (int j = 0; j < GGML_MAX_SRC; ++j)
                if (n->src[j]) allocate(n->src[j]);
            allocate(n);
            for (int j = 0; j < GGML_MAX_SRC; ++j) {
                ggml_tensor* p = n->src[j];
                if (!p) continue;
                HN& ph = h[p];
                ph.n_children--;
                if (ph.n_children == 0 && ph.n_views == 0) {
                    if (p->view_src) {
                        HN& vh = h[p->view_src];
                        vh.n_views--;
                        if (vh.n_views == 0 && vh.n_children == 0 && vh.allocated)
                            free_node(p->view_src);
                    } else if (ph.allocated)
                        free_node(p);
                }
            }
        }
    }
};
// HEADROOM_GRAPH_DUMP=FILE: every reserved graph's leafs and nodes in order, one per line (kind,
// index, name, op, type, ne[4], nb[4], flags, view_src and sources as L<i>/N<i>, or W for a tensor
// outside the graph such as a weight or the KV cache), to compare core/compute_graph.cpp's
// skeletons with llama.cpp's graph.
static void dump_graph(ggml_cgraph* g) {
    const char* path = getenv("HEADROOM_GRAPH_DUMP");
    if (!path || g->n_nodes < 100) return;
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
    fprintf(f, "GRAPH leafs=%d nodes=%d\n", g->n_leafs, g->n_nodes);
    auto line = [&](const char* kind, int i, const ggml_tensor* t) {
        fprintf(f, "%s%d %s %s t%d [%lld,%lld,%lld,%lld] [%zu,%zu,%zu,%zu] fl%d ext%d v=%s", kind, i,
                t->name, OD(t), (int)t->type, (long long)t->ne[0], (long long)t->ne[1],
                (long long)t->ne[2], (long long)t->ne[3], t->nb[0], t->nb[1], t->nb[2], t->nb[3],
                (int)t->flags, (t->data || t->buffer) ? 1 : 0, ref(t->view_src).c_str());
        for (int j = 0; j < GGML_MAX_SRC; ++j)
            if (t->src[j]) fprintf(f, " %s", ref(t->src[j]).c_str());
        fprintf(f, "\n");
    };
    for (int i = 0; i < g->n_leafs; ++i)
        line("L", i, g->leafs[i]);
    for (int i = 0; i < g->n_nodes; ++i)
        line("N", i, g->nodes[i]);
    fclose(f);
}
extern "C" bool ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph* g) {
    static auto real =
        (bool (*)(ggml_backend_sched_t, ggml_cgraph*))dlsym(H(), "ggml_backend_sched_reserve");
    dump_graph(g);
    Sim s;
    s.trace = getenv("PEAK_TRACE") && g->n_nodes > 100;
    s.trace_from = g->n_nodes - (getenv("PEAK_TRACE") ? atoi(getenv("PEAK_TRACE")) : 0);
    s.run(g);
    FILE* f = fopen(getenv("HEADROOM_PEAK_LOG") ? getenv("HEADROOM_PEAK_LOG") : "/dev/stderr", "a");
    fprintf(f, "RESERVE nodes=%d peak=%zu at node %d (%s %s): %s\n", g->n_nodes, s.peak,
            s.peak_node, s.peak_node >= 0 ? g->nodes[s.peak_node]->name : "",
            s.peak_node >= 0 ? OD(g->nodes[s.peak_node]) : "", s.peak_desc.c_str());
    fprintf(f, "   %s\n", s.extra.c_str());
    for (int i = g->n_nodes - 1; i >= 0; --i)
        if (!strcmp(g->nodes[i]->name, "result_norm")) {
            ggml_tensor* t = g->nodes[i];
            while (t->view_src)
                t = t->view_src;
            fprintf(f, "   NORM-ORIGIN %s\n", s.hist[s.h[t].off].c_str());
            break;
        }
    fclose(f);
    return real(sched, g);
}
