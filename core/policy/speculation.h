// Speculative decoding's decode speed: a drafter (a draft model, -md, or the model's own MTP
// head) proposes up to n_max tokens, the target checks them in one batch and keeps the accepted
// prefix plus one token of its own. What it gains depends on how often the target agrees with the
// drafter, which depends on the text being written: no planner knows that, so the figure is a
// range over the acceptance that published runs show, and a range over how llama.cpp spends each
// step. ESTIMATE throughout.
#pragma once

#include <cstdint>
#include <string>

namespace headroom::policy {

// The chance the target accepts each drafted position, given the ones before it were accepted,
// as published runs show it (tests/speed/speculation_published.tsv). A run that yields n_predict
// tokens and accepts n_accept of them took n_predict - n_accept steps; the accepted tokens a step
// expects, sum_{i=1}^{n_max} accept^i whether drafting stops early or not, equals n_accept per
// step, which fixes `accept` (acceptanceFromRun). The span is the least and the most of the runs
// of two sources in three (a fixed hash of each source's address; the third are held out and
// checked against it), rounded outwards: 0.325 (a 0.5B draft for a 7B at llama-server's
// defaults, 16 at most, on an M1 Pro: llama.cpp PR #12603, 200 tokens with 65 accepted) and
// 0.920 (a 160M draft for a 7B F16, greedy, 5 at most, on a V100: llama.cpp issue #3649, 261 with
// 208). Not knobs: a run's own acceptance replaces them once measured.
inline constexpr double kAcceptLow = 0.32;
inline constexpr double kAcceptHigh = 0.93;
// The central figure's acceptance: the median of the same runs, 0.851 (most published pairs are
// a small model of the target's own family, which agrees with it far more often than not).
inline constexpr double kAcceptTypical = 0.85;

// The per-position acceptance of a run: the `accept` at which sum_{i=1}^{n_max} accept^i equals
// n_accept / (n_predict - n_accept). 0 when the counts cannot come from a run (no step, or more
// accepted per step than n_max).
double acceptanceFromRun(double n_predict, double n_accept, std::uint32_t n_max);

// One step's inputs, as seconds per token of each part.
struct SpeculationWork {
    double target_decode_s = 0;  // one plain decode step of the target (weights read once)
    double target_prefill_s = 0; // the target's batched compute per token (1 / prefill rate)
    double draft_s = 0;          // one drafted token (the draft model's decode or the MTP head)
    std::uint32_t n_max = 0;     // --spec-draft-n-max
    double accept_low = kAcceptLow, accept_high = kAcceptHigh;
    double accept_typical = kAcceptTypical;
};

struct SpeculationFigure {
    double speedup = 0, speedup_low = 0, speedup_high = 0; // × the target's plain decode
    double tokens_per_step_low = 0, tokens_per_step_high = 0;
    std::string basis;
};

// Expected tokens a step yields when each position is accepted with probability `accept`:
// the accepted prefix of n_max drafted tokens plus the target's own, Σ_{i=0}^{n_max} accept^i.
double tokensPerStep(double accept, std::uint32_t n_max);
// Expected tokens drafted per step when drafting stops at the first token the target will
// reject (llama.cpp's draft-simple stops early below its p_min confidence; a perfect cut-off is
// the fastest case): Σ_{i=0}^{n_max-1} accept^i. Without any cut-off it is n_max.
double draftedPerStep(double accept, std::uint32_t n_max);

// The speed-up over plain decode. Each step drafts d tokens (d × draft_s) and verifies d + 1 in
// one target batch. The batch reads the weights once, as a decode does, and computes d + 1
// tokens: low, the two one after the other (target_decode_s + (d+1) × target_prefill_s), with
// every position drafted and the low acceptance; high, the longer of the two alone, drafting
// stopping at the first rejection and the high acceptance; the central figure is the low case's
// step at the typical acceptance. Errors never: a non-positive or non-finite time, or n_max 0,
// gives speed-up 0 (unknown).
SpeculationFigure estimateSpeculation(const SpeculationWork& w);

} // namespace headroom::policy
