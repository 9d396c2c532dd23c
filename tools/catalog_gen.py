#!/usr/bin/env python3
"""Writes resources/catalog.json from the cited facts below (kept as Python only so split-file
sums are computed, not typed). Every number comes from the URL listed next to it; see
docs/catalog.md. Run: python3 tools/catalog_gen.py > resources/catalog.json"""
import json
import sys

HF = "https://huggingface.co/"
# Exact per-file byte sizes (HF LFS sizes at pinned revisions) as listed in this public
# sourcing note; the revision-pinned HF URL of each file is cited per quant.
CN_LIST = "GitHub sourcing note 'GGUF 预设来源清单' (HF LFS sizes at pinned revisions)"
BART_QWEN3_30B_CARD = "https://model.aibase.com/zh/models/details/1924737621108723712"

def q(name, size, source, precision=0):
    d = {"name": name, "file_bytes": size, "source": source}
    if precision:
        d["file_bytes_precision"] = precision
    return d

GB_CARD = 5_000_000  # a card printing "32.48GB" (decimal, two places) is within ±5 MB


def hf(name, listed, source):
    """A quant whose size is the Hugging Face file listing's rounded figure, e.g. "16.5 GB".
    The listing prints three significant digits in decimal units, so the precision is half a
    unit of the last printed digit ("16.5 GB" is +-50 MB, "2.49 GB" +-5 MB, "858 MB" +-0.5 MB)."""
    size, precision = listed_bytes(listed)
    return q(name, size, source, precision)


def listed_bytes(listed):
    num, unit = listed.split()
    scale = {"kB": 10**3, "MB": 10**6, "GB": 10**9}[unit]
    decimals = len(num.split(".")[1]) if "." in num else 0
    size = round(float(num) * scale)
    return size, scale // (2 * 10**decimals)


def hf_parts(name, listed_parts, source):
    """A split quant: the parts' listed sizes and their roundings add up."""
    sizes = [listed_bytes(x) for x in listed_parts]
    return q(name, sum(a for a, _ in sizes), source, sum(b for _, b in sizes))


def hf_tree(repo_tree, fname_fmt, quants, lower_in_name=False):
    """Quants listed on one Hugging Face file tree: [(quant, "4.68 GB"), ...]; fname_fmt
    formats the quant name (lower-cased where the repo names files so) into the file name."""
    blob = repo_tree.replace("/tree/", "/blob/") + "/"
    return [hf(qn, listed, blob + fname_fmt.format(qn.lower() if lower_in_name else qn))
            for qn, listed in quants]


def card(name, gb, source):
    """A quant from a bartowski-style card that prints "4.28GB" (decimal GB, 2 places)."""
    return q(name, round(gb * 1e9), source, GB_CARD)


def mmproj(listed, source, name):
    size, precision = listed_bytes(listed)
    # The schema has no precision for the projector; the rounding is a fraction of a percent.
    return {"file_bytes": size, "name": name, "source": source}

def exact(name, size, source):
    """A quant whose exact byte size (the Hugging Face LFS size) was recorded by a cited catalog."""
    return q(name, size, source)


def gib(name, listed, source):
    """A quant from a card that prints llama.cpp's own size line, e.g. "109.381 GiB" (binary,
    three decimals: +-0.0005 GiB)."""
    num = listed.split()[0]
    decimals = len(num.split(".")[1]) if "." in num else 0
    return q(name, round(float(num) * 2**30), source, 2**30 // (2 * 10**decimals))


def mmproj_exact(size, source, name):
    return {"file_bytes": size, "name": name, "source": source}

def dense(id, name, arch, sources, ctx, vocab, embd, layers, ff, heads, kv, hd, params,
          quants, tied=False, active=None, **extra):
    e = {"id": id, "name": name, "architecture": arch, "sources": sources,
         "n_ctx_train": ctx, "n_vocab": vocab, "n_embd": embd, "n_layer": layers, "n_ff": ff,
         "tied_embeddings": tied,
         "attention": {"n_head": heads, "n_head_kv": kv, "head_dim_k": hd, "head_dim_v": hd},
         "params": {"total": params}, "quants": quants}
    if active:
        e["params"]["active"] = active
    for k, v in extra.items():
        if k == "attention":
            e["attention"].update(v)
        else:
            e[k] = v
    return e

M = []
# Filled next to the entries that need them; see the self-check at the end.
PARAM_EXTRA = {}
PARAM_SKIP = {}

# --- Llama -------------------------------------------------------------------------------
M.append(dense("llama-3.1-8b-instruct", "Llama 3.1 8B Instruct", "llama",
    [HF + "meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json",
     HF + "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF/tree/bf5b95e96dac0462e2a09145ec66cae9a3f12067"],
    131072, 128256, 4096, 32, 14336, 32, 8, 128, 8_030_000_000,
    [q("Q4_K_M", 4_920_739_232, HF + "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF/resolve/bf5b95e96dac0462e2a09145ec66cae9a3f12067/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf")]))
M.append(dense("llama-3.1-70b-instruct", "Llama 3.1 70B Instruct", "llama",
    [HF + "meta-llama/Llama-3.1-70B-Instruct/blob/main/config.json",
     HF + "bartowski/Meta-Llama-3.1-70B-Instruct-GGUF/tree/83fb6e83d0a8aada42d499259bc929d922e9a558"],
    131072, 128256, 8192, 80, 28672, 64, 8, 128, 70_600_000_000,
    [q("Q4_K_M", 42_520_398_400, HF + "bartowski/Meta-Llama-3.1-70B-Instruct-GGUF/resolve/83fb6e83d0a8aada42d499259bc929d922e9a558/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf")]))
M.append(dense("llama-3.3-70b-instruct", "Llama 3.3 70B Instruct", "llama",
    [HF + "meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json",
     HF + "bartowski/Llama-3.3-70B-Instruct-GGUF/tree/b6c5c9f176f3279204034e1d16d393105e95cb88"],
    131072, 128256, 8192, 80, 28672, 64, 8, 128, 70_600_000_000,
    [q("Q4_K_M", 42_520_398_816, HF + "bartowski/Llama-3.3-70B-Instruct-GGUF/resolve/b6c5c9f176f3279204034e1d16d393105e95cb88/Llama-3.3-70B-Instruct-Q4_K_M.gguf")]))
M.append(dense("llama-3.2-1b-instruct", "Llama 3.2 1B Instruct", "llama",
    [HF + "meta-llama/Llama-3.2-1B-Instruct/blob/main/config.json",
     HF + "bartowski/Llama-3.2-1B-Instruct-GGUF/tree/067b946cf014b7c697f3654f621d577a3e3afd1c"],
    131072, 128256, 2048, 16, 8192, 32, 8, 64, 1_230_000_000,
    [q("Q4_K_M", 807_694_464, HF + "bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/067b946cf014b7c697f3654f621d577a3e3afd1c/Llama-3.2-1B-Instruct-Q4_K_M.gguf")],
    tied=True))
M.append(dense("llama-3.2-3b-instruct", "Llama 3.2 3B Instruct", "llama",
    [HF + "meta-llama/Llama-3.2-3B-Instruct/blob/main/config.json",
     HF + "bartowski/Llama-3.2-3B-Instruct-GGUF/tree/5ab33fa94d1d04e903623ae72c95d1696f09f9e8"],
    131072, 128256, 3072, 28, 8192, 24, 8, 128, 3_210_000_000,
    [q("Q4_K_M", 2_019_377_696, HF + "bartowski/Llama-3.2-3B-Instruct-GGUF/resolve/5ab33fa94d1d04e903623ae72c95d1696f09f9e8/Llama-3.2-3B-Instruct-Q4_K_M.gguf")],
    tied=True))

# --- Qwen 2.5 ----------------------------------------------------------------------------
def qwen25(size, embd, layers, ff, heads, kv, vocab, tied, params, repo, rev, fname, nbytes):
    return dense(f"qwen2.5-{size.lower()}-instruct", f"Qwen2.5 {size} Instruct", "qwen2",
        [HF + f"Qwen/Qwen2.5-{size}-Instruct/blob/main/config.json", HF + f"{repo}/tree/{rev}"],
        32768, vocab, embd, layers, ff, heads, kv, 128 if embd != 896 else 64, params,
        [q("Q4_K_M", nbytes, HF + f"{repo}/resolve/{rev}/{fname}")], tied=tied)
M.append(qwen25("0.5B", 896, 24, 4864, 14, 2, 151936, True, 490_000_000, "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
    "9217f5db79a29953eb74d5343926648285ec7e67", "qwen2.5-0.5b-instruct-q4_k_m.gguf", 491_400_032))
M.append(qwen25("1.5B", 1536, 28, 8960, 12, 2, 151936, True, 1_540_000_000, "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
    "91cad51170dc346986eccefdc2dd33a9da36ead9", "qwen2.5-1.5b-instruct-q4_k_m.gguf", 1_117_320_736))
M.append(qwen25("3B", 2048, 36, 11008, 16, 2, 151936, True, 3_090_000_000, "Qwen/Qwen2.5-3B-Instruct-GGUF",
    "7dabda4d13d513e3e842b20f0d435c732f172cbe", "qwen2.5-3b-instruct-q4_k_m.gguf", 2_104_932_768))
M.append(qwen25("7B", 3584, 28, 18944, 28, 4, 152064, False, 7_610_000_000, "bartowski/Qwen2.5-7B-Instruct-GGUF",
    "8911e8a47f92bac19d6f5c64a2e2095bd2f7d031", "Qwen2.5-7B-Instruct-Q4_K_M.gguf", 4_683_074_240))
M.append(qwen25("14B", 5120, 48, 13824, 40, 8, 152064, False, 14_700_000_000, "bartowski/Qwen2.5-14B-Instruct-GGUF",
    "05244aa5d871c661c80082a15d3bce44714d068d", "Qwen2.5-14B-Instruct-Q4_K_M.gguf", 8_988_110_976))
M.append(qwen25("32B", 5120, 64, 27648, 40, 8, 152064, False, 32_500_000_000, "bartowski/Qwen2.5-32B-Instruct-GGUF",
    "2116cbb385b8ce3a4d28cf3bf1cd2039a55821a6", "Qwen2.5-32B-Instruct-Q4_K_M.gguf", 19_851_336_576))
M.append(qwen25("72B", 8192, 80, 29568, 64, 8, 152064, False, 72_700_000_000, "bartowski/Qwen2.5-72B-Instruct-GGUF",
    "d43fd973131bce821f41e2df3c78c6fe15c5627a", "Qwen2.5-72B-Instruct-Q4_K_M.gguf", 47_415_715_488))

# --- Qwen 3 ------------------------------------------------------------------------------
M.append(dense("qwen3-14b", "Qwen3 14B", "qwen3",
    [HF + "Qwen/Qwen3-14B/blob/main/config.json",
     HF + "Qwen/Qwen3-14B-GGUF/tree/530227a7d994db8eca5ab5ced2fb692b614357fd"],
    40960, 151936, 5120, 40, 17408, 40, 8, 128, 14_800_000_000,
    [q("Q4_K_M", 9_001_752_960, HF + "Qwen/Qwen3-14B-GGUF/resolve/530227a7d994db8eca5ab5ced2fb692b614357fd/Qwen3-14B-Q4_K_M.gguf")]))
M.append(dense("qwen3-32b", "Qwen3 32B", "qwen3",
    [HF + "Qwen/Qwen3-32B/blob/main/config.json",
     HF + "Qwen/Qwen3-32B-GGUF/tree/938a7432affaec9157f883a87164e2646ae17555"],
    40960, 151936, 5120, 64, 25600, 64, 8, 128, 32_800_000_000,
    [q("Q4_K_M", 19_762_149_024, HF + "Qwen/Qwen3-32B-GGUF/resolve/938a7432affaec9157f883a87164e2646ae17555/Qwen3-32B-Q4_K_M.gguf")]))
M.append(dense("qwen3-30b-a3b", "Qwen3 30B-A3B", "qwen3moe",
    [HF + "Qwen/Qwen3-30B-A3B/blob/main/config.json",
     HF + "Qwen/Qwen3-30B-A3B-GGUF/tree/e4d4bafdfb96a411a163846265362aceb0b9c63a",
     HF + "bartowski/Qwen_Qwen3-30B-A3B-GGUF", BART_QWEN3_30B_CARD],
    40960, 151936, 2048, 48, 0, 32, 4, 128, 30_500_000_000,
    [q("Q4_K_M", 18_556_685_824, HF + "Qwen/Qwen3-30B-A3B-GGUF/resolve/e4d4bafdfb96a411a163846265362aceb0b9c63a/Qwen3-30B-A3B-Q4_K_M.gguf"),
     q("Q3_K_S", 13_292_468_800, HF + "unsloth/Qwen3-30B-A3B-GGUF/blob/main/Qwen3-30B-A3B-Q3_K_S.gguf"),
     q("Q5_K_M", 21_740_000_000, HF + "bartowski/Qwen_Qwen3-30B-A3B-GGUF/blob/main/Qwen_Qwen3-30B-A3B-Q5_K_M.gguf", GB_CARD),
     q("Q6_K", 25_100_000_000, HF + "bartowski/Qwen_Qwen3-30B-A3B-GGUF/blob/main/Qwen_Qwen3-30B-A3B-Q6_K.gguf", GB_CARD),
     q("Q8_0", 32_480_000_000, HF + "bartowski/Qwen_Qwen3-30B-A3B-GGUF/blob/main/Qwen_Qwen3-30B-A3B-Q8_0.gguf", GB_CARD)],
    moe={"n_expert": 128, "n_expert_used": 8, "n_ff_exp": 768},
    active=3_300_000_000))
q235 = [29_742_283_872, 29_974_106_496, 29_933_980_640, 29_936_094_304, 22_567_608_864]
M.append(dense("qwen3-235b-a22b", "Qwen3 235B-A22B", "qwen3moe",
    [HF + "Qwen/Qwen3-235B-A22B/blob/main/config.json",
     HF + "Qwen/Qwen3-235B-A22B-GGUF/tree/211e807ecd6d37446a747409108783e39a04e80f"],
    40960, 151936, 4096, 94, 0, 64, 4, 128, 235_000_000_000,
    [q("Q4_K_M", sum(q235), HF + "Qwen/Qwen3-235B-A22B-GGUF/tree/211e807ecd6d37446a747409108783e39a04e80f/Q4_K_M (5 parts)")],
    moe={"n_expert": 128, "n_expert_used": 8, "n_ff_exp": 1536},
    active=22_000_000_000))


# --- Qwen3-Next (hybrid: Gated DeltaNet + gated attention every 4th layer) ---------------
# Recurrent state as llama_hparams::n_embd_r()/n_embd_s() compute it from the GGUF keys the
# converter writes (models/qwen3next.cpp): ssm_d_conv = linear_conv_kernel_dim 4,
# ssm_d_state = linear_key_head_dim 128, ssm_n_group = linear_num_key_heads 16,
# ssm_d_inner = linear_num_value_heads 32 x linear_value_head_dim 128 = 4096.
#   n_embd_r = (4 - 1) x (4096 + 2 x 16 x 128) = 24576;  n_embd_s = 128 x 4096 = 524288.
# Mixer parameters (split only): in_proj_qkvz 2048 x (2x16x128 + 2x32x128) + in_proj_ba
# 2048 x 64 + out_proj 4096 x 2048 = 33 685 504.
M.append(dense("qwen3-next-80b-a3b-instruct", "Qwen3-Next 80B-A3B Instruct", "qwen3next",
    [HF + "Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json",
     HF + "Qwen/Qwen3-Next-80B-A3B-Instruct-GGUF"],
    262144, 151936, 2048, 48, 0, 16, 2, 256, 80_000_000_000,
    # The official repo's page lists the Q4_K_M file at "48.4 GB" (read via a public
    # experiment plan pinning that file); rounded to 0.1 GB, so +-50 MB.
    [q("Q4_K_M", 48_400_000_000, HF + "Qwen/Qwen3-Next-80B-A3B-Instruct-GGUF/blob/main/Qwen3-Next-80B-A3B-Instruct-Q4_K_M.gguf", 50_000_000)],
    recurrent={"period": 4, "full_at": "end", "n_embd_r": 24576, "n_embd_s": 524288,
               "mixer_params": 33_685_504},
    moe={"n_expert": 512, "n_expert_used": 10, "n_expert_shared": 1, "n_ff_exp": 512,
         "n_ff_shexp": 512},
    active=3_000_000_000))

# Qwen3-Coder-Next (qwen3next): its model card (the unsloth GGUF repo's copy, kept in a public
# llama.cpp notes repo) gives Qwen3-Next-80B-A3B's shapes exactly -- hidden 2048, 48 layers as
# 12 x (3 x Gated DeltaNet -> MoE, 1 x Gated Attention -> MoE), 16 Q / 2 KV heads of 256,
# linear attention 32 V / 16 QK heads of 128, 512 experts of 512 (10 used) and 1 shared, 262144
# tokens natively, 80B total / 3B active. The release note (ModelScope's write-up) says it is
# built on Qwen3-Next-80B-A3B-Base, so the vocabulary is that model's too; the recurrent state
# and mixer size follow from the same shapes as for the entry above. Size: a public hybrid-quant card's comparison row for the plain
# llama.cpp Q4_K_M ("48.5e9", default embed and output; three digits, +-50 MB).
QCN_CARD = "https://github.com/nerdpudding/llama_cpp/blob/2a76e8e89d604331380651de9aeb0c1b2d60f2cb/models/documentation/README_modelcard_qwen3_coder_next.md"
QCN_SIZE = HF + "steampunque/Qwen3-Coder-Next-Hybrid-GGUF"
M.append(dense("qwen3-coder-next", "Qwen3-Coder-Next (80B-A3B)", "qwen3next",
    [HF + "Qwen/Qwen3-Coder-Next/blob/main/config.json", QCN_CARD,
     "https://modelscope.csdn.net/698436937c1d88441d91f3e2.html", QCN_SIZE],
    262144, 151936, 2048, 48, 0, 16, 2, 256, 80_000_000_000,
    [q("Q4_K_M", 48_500_000_000, QCN_SIZE + "#comparison", 50_000_000)],
    recurrent={"period": 4, "full_at": "end", "n_embd_r": 24576, "n_embd_s": 524288,
               "mixer_params": 33_685_504},
    moe={"n_expert": 512, "n_expert_used": 10, "n_expert_shared": 1, "n_ff_exp": 512,
         "n_ff_shexp": 512},
    active=3_000_000_000))

# --- gpt-oss -----------------------------------------------------------------------------
M.append(dense("gpt-oss-20b", "gpt-oss 20B", "gpt-oss",
    [HF + "openai/gpt-oss-20b/blob/main/config.json",
     HF + "lmstudio-community/gpt-oss-20b-GGUF"],
    131072, 201088, 2880, 24, 0, 64, 8, 64, 21_000_000_000,
    [q("MXFP4", 12_109_565_632, HF + "lmstudio-community/gpt-oss-20b-GGUF/blob/main/gpt-oss-20b-MXFP4.gguf")],
    attention={"sliding_window": 128, "swa": {"period": 2, "full_at": "end"}},
    moe={"n_expert": 32, "n_expert_used": 4, "n_ff_exp": 2880},
    active=3_600_000_000))

# --- Gemma -------------------------------------------------------------------------------
M.append(dense("gemma-3-1b-it-qat", "Gemma 3 1B IT (QAT)", "gemma3",
    [HF + "google/gemma-3-1b-it/blob/main/config.json",
     HF + "lmstudio-community/gemma-3-1B-it-QAT-GGUF"],
    32768, 262144, 1152, 26, 6912, 4, 1, 256, 1_000_000_000,
    [q("Q4_0", 720_425_472, HF + "lmstudio-community/gemma-3-1B-it-QAT-GGUF/blob/main/gemma-3-1B-it-QAT-Q4_0.gguf")],
    tied=True, attention={"sliding_window": 512, "swa": {"period": 6, "full_at": "end"}}))

# Gemma 3 4B/12B/27B (google/gemma-3-*-it config.json, text_config): 5 sliding layers then one
# global (sliding_window_pattern 6 -> llama.cpp models/gemma3.cpp set_swa_pattern(6): il % 6 < 5
# slides), window 1024. HF vocab_size 262208 counts padding rows the converter drops
# (conversion/gemma.py "remove OOV rows in token_embd"), so the GGUF vocabulary is the
# tokenizer's 262144. Tied embeddings. 27B: head_dim 128 (query_pre_attn_scalar 168 =
# 5376/32 is only the attention scale, models/gemma3.cpp), 4B/12B: head_dim 256.
GEMMA3_SWA = {"sliding_window": 1024, "swa": {"period": 6, "full_at": "end"}}
G3 = HF + "ggml-org/gemma-3-{s}-it-GGUF/tree/main"
M.append(dense("gemma-3-27b-it", "Gemma 3 27B IT", "gemma3",
    [HF + "google/gemma-3-27b-it/blob/main/config.json", G3.format(s="27b")],
    131072, 262144, 5376, 62, 21504, 32, 16, 128, 27_400_000_000,
    [hf("Q4_K_M", "16.5 GB", HF + "ggml-org/gemma-3-27b-it-GGUF/blob/main/gemma-3-27b-it-Q4_K_M.gguf"),
     hf("Q8_0", "28.7 GB", HF + "ggml-org/gemma-3-27b-it-GGUF/blob/main/gemma-3-27b-it-Q8_0.gguf")],
    tied=True, attention=GEMMA3_SWA,
    mmproj=mmproj("858 MB", HF + "ggml-org/gemma-3-27b-it-GGUF/blob/main/mmproj-model-f16.gguf",
                  "mmproj-model-f16.gguf")))

# --- DeepSeek V2 Lite (MLA + MoE) ---------------------------------------------------------
# deepseek-ai/DeepSeek-V2-Lite-Chat config.json: hidden 2048, 27 layers, 16 heads, q_lora_rank
# null, kv_lora_rank 512, qk_nope_head_dim 128 + qk_rope_head_dim 64 = 192 per query/key head,
# v_head_dim 128, intermediate_size 10944 (the dense layer), moe_intermediate_size 1408, 64
# routed experts, 6 per token, 2 shared, first_k_dense_replace 1, vocab 102400,
# max_position_embeddings 163840. Cross-checked against a Megatron recipe for the same model
# (num_layers 27, moe_layer_freq [0]*1+[1]*26, moe_shared_expert_intermediate_size 2816 = 2x1408).
# llama.cpp caches one latent row of kv_lora_rank + rope = 576 elements and no V per layer
# (llama-kv-cache.cpp: has_v = !is_mla) -- for GGUFs converted with the split wk_b/wv_b
# (conversion/deepseek.py writes key_length_mla); a legacy GGUF with the fused wkv_b is not MLA
# to llama.cpp and caches full K 16x192 and V 16x128 per layer (its header says so).
M.append(dense("deepseek-v2-lite-chat", "DeepSeek-V2-Lite Chat", "deepseek2",
    [HF + "deepseek-ai/DeepSeek-V2-Lite-Chat/blob/main/config.json",
     HF + "mradermacher/DeepSeek-V2-Lite-Chat-GGUF/tree/b71ef480ff005cef0bc7c15a49f3c306f396a395",
     HF + "yabichiu/DeepSeek-V2-Lite-Chat-GGUF/tree/main"],
    163840, 102400, 2048, 27, 10944, 16, 16, 192, 15_700_000_000,
    [hf("Q4_K_M", "10.4 GB", HF + "mradermacher/DeepSeek-V2-Lite-Chat-GGUF/blob/b71ef480ff005cef0bc7c15a49f3c306f396a395/DeepSeek-V2-Lite-Chat.Q4_K_M.gguf"),
     hf("Q4_K_S", "9.53 GB", HF + "mradermacher/DeepSeek-V2-Lite-Chat-GGUF/blob/b71ef480ff005cef0bc7c15a49f3c306f396a395/DeepSeek-V2-Lite-Chat.Q4_K_S.gguf"),
     hf("Q3_K_M", "8.13 GB", HF + "mradermacher/DeepSeek-V2-Lite-Chat-GGUF/blob/b71ef480ff005cef0bc7c15a49f3c306f396a395/DeepSeek-V2-Lite-Chat.Q3_K_M.gguf"),
     hf("Q5_K_M", "11.9 GB", HF + "mradermacher/DeepSeek-V2-Lite-Chat-GGUF/blob/b71ef480ff005cef0bc7c15a49f3c306f396a395/DeepSeek-V2-Lite-Chat.Q5_K_M.gguf"),
     hf("Q6_K", "14.1 GB", HF + "yabichiu/DeepSeek-V2-Lite-Chat-GGUF/blob/main/DeepSeek-V2-Lite-Chat.Q6_K.gguf"),
     hf("Q8_0", "16.7 GB", HF + "yabichiu/DeepSeek-V2-Lite-Chat-GGUF/blob/main/DeepSeek-V2-Lite-Chat.Q8_0.gguf")],
    attention={"head_dim_v": 128, "kv_lora_rank": 512, "rope_dim": 64},
    moe={"n_expert": 64, "n_expert_used": 6, "n_expert_shared": 2, "n_ff_exp": 1408,
         "n_ff_shexp": 1408, "dense_lead": 1},
    active=2_400_000_000))

# --- DeepSeek-V3 (MLA + MoE, 671B) -------------------------------------------------------
# deepseek-ai/DeepSeek-V3 config.json (explained key by key in a public gist that links the
# DeepSeek-V3-Base config.json; the same values are the DeepseekV3Config defaults documented on
# deepwiki.com/inclusionAI/MoBE/8.1-deepseekv3config): hidden 7168, 61 layers, 128 heads (and 128
# KV heads), q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128 + qk_rope_head_dim 64 = 192
# per query/key head, v_head_dim 128, intermediate_size 18432 (the dense layers),
# moe_intermediate_size 2048, 256 routed experts, 8 per token, 1 shared, vocab 129280,
# max_position_embeddings 163840. first_k_dense_replace 3 and v_head_dim 128: a Megatron recipe
# for the model (moe_layer_freq ([0]*3+[1]*58), v_head_dim 128, shared expert 2048). The model's
# README_WEIGHTS: 671B parameters in the 61 main layers, 36.7B active; one MTP module stored as
# layer 61 (num_nextn_predict_layers 1), which llama.cpp's converter leaves out of deepseek2 GGUFs
# (block_count = num_hidden_layers), so the files below have 61 blocks and no nextn layer.
# KV: priced as MLA (one latent row of kv_lora_rank + rope = 576 elements per token and layer, no
# V; llama-kv-cache.cpp has_v = !is_mla) like DeepSeek-V2-Lite above; the same caveat holds for a
# GGUF converted before llama.cpp split wkv_b (its header says so, and shape_from_gguf reads it).
# File sizes: bartowski's card for the 0324 checkpoint (same architecture and tensor shapes as V3),
# which prints "404.43GB" (decimal GB, two places; every part of the split quant together).
DSV3_BART = HF + "bartowski/deepseek-ai_DeepSeek-V3-0324-GGUF"
M.append(dense("deepseek-v3", "DeepSeek-V3 (0324)", "deepseek2",
    [HF + "deepseek-ai/DeepSeek-V3/blob/main/config.json",
     HF + "deepseek-ai/DeepSeek-V3-Base/blob/main/config.json",
     "https://gist.github.com/vinhnx/40eaf98b4bb51f0770276020a690bad5",
     "https://deepwiki.com/inclusionAI/MoBE/8.1-deepseekv3config",
     "https://github.com/deepseek-ai/DeepSeek-V3/blob/main/README_WEIGHTS.md",
     DSV3_BART],
    163840, 129280, 7168, 61, 18432, 128, 128, 192, 671_000_000_000,
    [card("Q4_K_M", 404.43, DSV3_BART + "#download-a-file-not-the-whole-branch-from-below"),
     card("Q4_1", 419.94, DSV3_BART + "#download-a-file-not-the-whole-branch-from-below"),
     card("Q5_K_S", 461.81, DSV3_BART + "#download-a-file-not-the-whole-branch-from-below"),
     card("Q5_K_M", 475.40, DSV3_BART + "#download-a-file-not-the-whole-branch-from-below"),
     card("Q6_K", 550.80, DSV3_BART + "#download-a-file-not-the-whole-branch-from-below"),
     card("Q8_0", 713.29, DSV3_BART + "#download-a-file-not-the-whole-branch-from-below")],
    attention={"head_dim_v": 128, "kv_lora_rank": 512, "rope_dim": 64, "q_lora_rank": 1536},
    moe={"n_expert": 256, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 2048,
         "n_ff_shexp": 2048, "dense_lead": 3},
    active=36_700_000_000))

M.append(dense("gemma-3-4b-it", "Gemma 3 4B IT", "gemma3",
    [HF + "google/gemma-3-4b-it/blob/main/config.json", G3.format(s="4b"),
     HF + "gaianet/gemma-3-4b-it-GGUF"],
    131072, 262144, 2560, 34, 10240, 8, 4, 256, 3_880_000_000,
    [hf("Q4_K_M", "2.49 GB", HF + "ggml-org/gemma-3-4b-it-GGUF/blob/main/gemma-3-4b-it-Q4_K_M.gguf"),
     hf("Q8_0", "4.13 GB", HF + "ggml-org/gemma-3-4b-it-GGUF/blob/main/gemma-3-4b-it-Q8_0.gguf")],
    tied=True, attention=GEMMA3_SWA,
    mmproj=mmproj("851 MB", HF + "ggml-org/gemma-3-4b-it-GGUF/blob/main/mmproj-model-f16.gguf",
                  "mmproj-model-f16.gguf")))
# 12B: no projector size found for a repo that also lists the weights; omitted, not guessed.
M.append(dense("gemma-3-12b-it", "Gemma 3 12B IT", "gemma3",
    [HF + "google/gemma-3-12b-it/blob/main/config.json",
     HF + "lm-kit/gemma-3-12b-instruct-gguf/tree/main"],
    131072, 262144, 3840, 48, 15360, 16, 8, 256, 12_000_000_000,
    hf_tree(HF + "lm-kit/gemma-3-12b-instruct-gguf/tree/main", "gemma-3-it-12B-{}.gguf",
            [("Q4_K_M", "7.3 GB"), ("Q3_K_M", "6.01 GB"), ("Q6_K", "9.66 GB"), ("Q8_0", "12.5 GB")]),
    tied=True, attention=GEMMA3_SWA))

# Gemma 2 (google/gemma-2-*-it config.json): every other layer slides over 4096 tokens
# (llama.cpp models/gemma2.cpp: n_swa default 4096, set_swa_pattern(2) -> even layers slide),
# vocab 256000, 8192 trained context, tied embeddings.
GEMMA2_SWA = {"sliding_window": 4096, "swa": {"period": 2, "full_at": "end"}}
M.append(dense("gemma-2-9b-it", "Gemma 2 9B IT", "gemma2",
    [HF + "google/gemma-2-9b-it/blob/main/config.json",
     HF + "bartowski/gemma-2-9b-it-GGUF/tree/599b2dd2c0fa0bdd3689ad97d9c7ff4a5cc1ee8f"],
    8192, 256000, 3584, 42, 14336, 16, 8, 256, 9_240_000_000,
    hf_tree(HF + "bartowski/gemma-2-9b-it-GGUF/tree/599b2dd2c0fa0bdd3689ad97d9c7ff4a5cc1ee8f",
            "gemma-2-9b-it-{}.gguf",
            [("Q4_K_M", "5.76 GB"), ("Q4_K_S", "5.48 GB"), ("Q3_K_M", "4.76 GB"), ("Q2_K", "3.81 GB")]),
    tied=True, attention=GEMMA2_SWA))
# 27B: head_dim 128 (query_pre_attn_scalar 144 = 4608/32 is only the attention scale).
M.append(dense("gemma-2-27b-it", "Gemma 2 27B IT", "gemma2",
    [HF + "google/gemma-2-27b-it/blob/main/config.json",
     HF + "bartowski/gemma-2-27b-it-GGUF/blob/main/README.md"],
    8192, 256000, 4608, 46, 36864, 32, 16, 128, 27_200_000_000,
    [card("Q8_0", 28.93, HF + "bartowski/gemma-2-27b-it-GGUF/blob/main/gemma-2-27b-it-Q8_0.gguf")],
    tied=True, attention=GEMMA2_SWA))

# --- Qwen 3 dense (Qwen/Qwen3-*/config.json; head_dim 128, 40960 context) ------------------
M.append(dense("qwen3-4b", "Qwen3 4B", "qwen3",
    [HF + "Qwen/Qwen3-4B/blob/main/config.json", HF + "bartowski/Qwen_Qwen3-4B-GGUF"],
    40960, 151936, 2560, 36, 9728, 32, 8, 128, 4_020_000_000,
    [card(qn, gb, HF + "bartowski/Qwen_Qwen3-4B-GGUF/blob/main/Qwen_Qwen3-4B-" + qn + ".gguf")
     for qn, gb in [("Q4_K_M", 2.50), ("Q5_K_M", 2.89), ("Q6_K", 3.31), ("Q8_0", 4.28)]],
    tied=True))
M.append(dense("qwen3-8b", "Qwen3 8B", "qwen3",
    [HF + "Qwen/Qwen3-8B/blob/main/config.json", HF + "bartowski/Qwen_Qwen3-8B-GGUF",
     HF + "codebasic/Qwen3-8B-GGUF/tree/main"],
    40960, 151936, 4096, 36, 12288, 32, 8, 128, 8_190_000_000,
    [hf("Q4_0", "4.77 GB", HF + "codebasic/Qwen3-8B-GGUF/blob/main/Qwen3-8B-Q4_0.gguf"),
     card("Q6_K", 6.73, HF + "bartowski/Qwen_Qwen3-8B-GGUF/blob/main/Qwen_Qwen3-8B-Q6_K.gguf"),
     card("Q8_0", 8.71, HF + "bartowski/Qwen_Qwen3-8B-GGUF/blob/main/Qwen_Qwen3-8B-Q8_0.gguf")]))

# --- Qwen 2.5 Coder / DeepSeek-R1 distills (Qwen2.5 shapes, qwen2 arch) ---------------------
M.append(dense("qwen2.5-coder-3b-instruct", "Qwen2.5 Coder 3B Instruct", "qwen2",
    [HF + "Qwen/Qwen2.5-Coder-3B-Instruct/blob/main/config.json",
     HF + "mradermacher/Qwen2.5-Coder-3B-Instruct-GGUF/tree/dcdfe71c9078ab52b4369ec711dcdb06edfeb0b7"],
    32768, 151936, 2048, 36, 11008, 16, 2, 128, 3_090_000_000,
    hf_tree(HF + "mradermacher/Qwen2.5-Coder-3B-Instruct-GGUF/tree/dcdfe71c9078ab52b4369ec711dcdb06edfeb0b7",
            "Qwen2.5-Coder-3B-Instruct.{}.gguf",
            [("Q4_K_M", "1.93 GB"), ("Q6_K", "2.54 GB"), ("Q8_0", "3.29 GB")]),
    tied=True))
M.append(dense("qwen2.5-coder-7b-instruct", "Qwen2.5 Coder 7B Instruct", "qwen2",
    [HF + "Qwen/Qwen2.5-Coder-7B-Instruct/blob/main/config.json",
     HF + "lmstudio-community/Qwen2.5-Coder-7B-Instruct-GGUF/tree/2f71e410e3ef52f56324ef193ec45271f7727db1"],
    32768, 152064, 3584, 28, 18944, 28, 4, 128, 7_620_000_000,
    hf_tree(HF + "lmstudio-community/Qwen2.5-Coder-7B-Instruct-GGUF/tree/2f71e410e3ef52f56324ef193ec45271f7727db1",
            "Qwen2.5-Coder-7B-Instruct-{}.gguf",
            [("Q4_K_M", "4.68 GB"), ("Q3_K_L", "4.09 GB"), ("Q6_K", "6.25 GB"), ("Q8_0", "8.1 GB")])))
M.append(dense("qwen2.5-coder-32b-instruct", "Qwen2.5 Coder 32B Instruct", "qwen2",
    [HF + "Qwen/Qwen2.5-Coder-32B-Instruct/blob/main/config.json",
     HF + "mradermacher/Qwen2.5-Coder-32B-Instruct-GGUF/tree/a189dfcd3bc855d55039318c5e423c7520835ec5"],
    32768, 152064, 5120, 64, 27648, 40, 8, 128, 32_800_000_000,
    hf_tree(HF + "mradermacher/Qwen2.5-Coder-32B-Instruct-GGUF/tree/a189dfcd3bc855d55039318c5e423c7520835ec5",
            "Qwen2.5-Coder-32B-Instruct.{}.gguf",
            [("Q4_K_M", "19.9 GB"), ("Q3_K_M", "15.9 GB"), ("Q4_K_S", "18.8 GB"), ("Q5_K_M", "23.3 GB"),
             ("Q6_K", "26.9 GB"), ("Q8_0", "34.8 GB")])))
M.append(dense("deepseek-r1-distill-qwen-7b", "DeepSeek-R1-Distill-Qwen 7B", "qwen2",
    [HF + "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B/blob/main/config.json",
     HF + "lmstudio-community/DeepSeek-R1-Distill-Qwen-7B-GGUF/tree/main"],
    131072, 152064, 3584, 28, 18944, 28, 4, 128, 7_620_000_000,
    hf_tree(HF + "lmstudio-community/DeepSeek-R1-Distill-Qwen-7B-GGUF/tree/main",
            "DeepSeek-R1-Distill-Qwen-7B-{}.gguf",
            [("Q4_K_M", "4.68 GB"), ("Q3_K_L", "4.09 GB"), ("Q6_K", "6.25 GB"), ("Q8_0", "8.1 GB")])))
M.append(dense("deepseek-r1-distill-qwen-14b", "DeepSeek-R1-Distill-Qwen 14B", "qwen2",
    [HF + "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B/blob/main/config.json",
     HF + "osllmai-community/DeepSeek-R1-Distill-Qwen-14B-GGUF/tree/main"],
    131072, 152064, 5120, 48, 13824, 40, 8, 128, 14_800_000_000,
    hf_tree(HF + "osllmai-community/DeepSeek-R1-Distill-Qwen-14B-GGUF/tree/main",
            "DeepSeek-R1-Distill-Qwen-14B-{}.gguf",
            [("Q4_K_M", "8.99 GB"), ("Q3_K_M", "7.34 GB"), ("Q5_K_M", "10.5 GB"), ("Q6_K", "12.1 GB")])))
M.append(dense("deepseek-r1-distill-qwen-32b", "DeepSeek-R1-Distill-Qwen 32B", "qwen2",
    [HF + "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B/blob/main/config.json",
     HF + "lmstudio-community/DeepSeek-R1-Distill-Qwen-32B-GGUF/tree/03b74501df6f984565c8615ee3eed242ea43a4bf"],
    131072, 152064, 5120, 64, 27648, 40, 8, 128, 32_800_000_000,
    hf_tree(HF + "lmstudio-community/DeepSeek-R1-Distill-Qwen-32B-GGUF/tree/03b74501df6f984565c8615ee3eed242ea43a4bf",
            "DeepSeek-R1-Distill-Qwen-32B-{}.gguf",
            [("Q4_K_M", "19.9 GB"), ("Q3_K_L", "17.2 GB"), ("Q6_K", "26.9 GB"), ("Q8_0", "34.8 GB")])))

# --- Mistral ------------------------------------------------------------------------------
# v0.3: no sliding window (config sliding_window null), vocab 32768. Nemo: head_dim 128 with
# 32 heads on a 5120 width, max_position_embeddings 1024000 (GGUF context_length).
M.append(dense("mistral-7b-instruct-v0.3", "Mistral 7B Instruct v0.3", "llama",
    [HF + "mistralai/Mistral-7B-Instruct-v0.3/blob/main/config.json",
     HF + "MaziyarPanahi/Mistral-7B-Instruct-v0.3-GGUF/tree/refs%2Fpr%2F1"],
    32768, 32768, 4096, 32, 14336, 32, 8, 128, 7_250_000_000,
    hf_tree(HF + "MaziyarPanahi/Mistral-7B-Instruct-v0.3-GGUF/tree/refs%2Fpr%2F1",
            "Mistral-7B-Instruct-v0.3.{}.gguf",
            [("Q4_K_M", "4.37 GB"), ("Q4_K_S", "4.14 GB"), ("Q3_K_M", "3.52 GB"), ("Q2_K", "2.72 GB")])))
M.append(dense("mistral-nemo-instruct-2407", "Mistral Nemo Instruct 2407 (12B)", "llama",
    [HF + "mistralai/Mistral-Nemo-Instruct-2407/blob/main/config.json",
     HF + "unsloth/Mistral-Nemo-Instruct-2407-GGUF/tree/main"],
    1024000, 131072, 5120, 40, 14336, 32, 8, 128, 12_200_000_000,
    hf_tree(HF + "unsloth/Mistral-Nemo-Instruct-2407-GGUF/tree/main", "Mistral-Nemo-Instruct-2407.{}.gguf",
            [("Q4_K_M", "7.48 GB"), ("Q3_K_M", "6.08 GB"), ("Q5_K_M", "8.73 GB"), ("Q6_K", "10.1 GB"),
             ("Q8_0", "13 GB")])))

# --- Phi 3 / 3.5 mini (phi3 arch; the config's sliding_window is ignored by llama.cpp:
# models/phi3.cpp sets swa_type NONE, so every layer is full attention) ---------------------
M.append(dense("phi-3.5-mini-instruct", "Phi-3.5 mini Instruct (3.8B)", "phi3",
    [HF + "microsoft/Phi-3.5-mini-instruct/blob/main/config.json",
     HF + "QuantFactory/Phi-3.5-mini-instruct-GGUF/tree/ec8a06d33e82b858c4347f3610eedfa74bfd63d1"],
    131072, 32064, 3072, 32, 8192, 32, 32, 96, 3_820_000_000,
    hf_tree(HF + "QuantFactory/Phi-3.5-mini-instruct-GGUF/tree/ec8a06d33e82b858c4347f3610eedfa74bfd63d1",
            "Phi-3.5-mini-instruct.{}.gguf",
            [("Q4_K_M", "2.39 GB"), ("Q5_K_M", "2.82 GB"), ("Q6_K", "3.14 GB"), ("Q8_0", "4.06 GB")])))
M.append(dense("phi-3-mini-4k-instruct", "Phi-3 mini 4K Instruct (3.8B)", "phi3",
    [HF + "microsoft/Phi-3-mini-4k-instruct/blob/main/config.json",
     HF + "mradermacher/Phi-3-mini-4k-instruct-GGUF/tree/6fc30a5b264aa7cbf1243bd6901d2769d7ee27a9"],
    4096, 32064, 3072, 32, 8192, 32, 32, 96, 3_820_000_000,
    hf_tree(HF + "mradermacher/Phi-3-mini-4k-instruct-GGUF/tree/6fc30a5b264aa7cbf1243bd6901d2769d7ee27a9",
            "Phi-3-mini-4k-instruct.{}.gguf",
            [("Q4_K_M", "2.39 GB"), ("Q4_K_S", "2.19 GB"), ("Q6_K", "3.14 GB"), ("Q8_0", "4.06 GB")])))

# --- Granite 3.0 8B (granite arch; ibm-granite/granite-3.0-8b-instruct config.json) ------
M.append(dense("granite-3.0-8b-instruct", "Granite 3.0 8B Instruct", "granite",
    [HF + "ibm-granite/granite-3.0-8b-instruct/blob/main/config.json",
     HF + "lmstudio-community/granite-3.0-8b-instruct-GGUF/tree/79988dea18d504282ce06747bc0bb653f03a0d68"],
    4096, 49155, 4096, 40, 12800, 32, 8, 128, 8_170_000_000,
    hf_tree(HF + "lmstudio-community/granite-3.0-8b-instruct-GGUF/tree/79988dea18d504282ce06747bc0bb653f03a0d68",
            "granite-3.0-8b-instruct-{}.gguf",
            [("Q4_K_M", "4.94 GB"), ("Q3_K_L", "4.35 GB"), ("Q6_K", "6.71 GB"), ("Q8_0", "8.68 GB")]),
    tied=True))

# --- gpt-oss 120B (openai/gpt-oss-120b config.json: 36 layers, same block as 20b, 128
# experts). Only unsloth's split Q4_K_M listing was found: 49.6 GB + 13.1 GB. ---------------
M.append(dense("gpt-oss-120b", "gpt-oss 120B", "gpt-oss",
    [HF + "openai/gpt-oss-120b/blob/main/config.json",
     HF + "unsloth/gpt-oss-120b-GGUF/tree/main/Q4_K_M"],
    131072, 201088, 2880, 36, 0, 64, 8, 64, 117_000_000_000,
    [hf_parts("Q4_K_M", ["49.6 GB", "13.1 GB"],
              HF + "unsloth/gpt-oss-120b-GGUF/tree/main/Q4_K_M (2 parts)")],
    attention={"sliding_window": 128, "swa": {"period": 2, "full_at": "end"}},
    moe={"n_expert": 128, "n_expert_used": 4, "n_ff_exp": 2880},
    active=5_100_000_000))

# --- NVIDIA Nemotron Nano 9B v2 (nemotron_h: Mamba-2 + MLP + 4 attention layers) ---------
# config.json hybrid_override_pattern (M = Mamba-2, * = attention, - = MLP), 56 layers:
NEMOTRON_NANO_9B_V2 = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-"
# llama.cpp (conversion/nemotron.py, models/nemotron-h.cpp): a layer is recurrent iff its
# head_count_kv and feed_forward_length are both 0 (the 'M' layers); '*' layers have 8 KV
# heads x head_dim 128 and no FFN; '-' layers have an FFN of intermediate_size 15680 and no
# attention. Mamba-2: d_inner = mamba_num_heads 128 x mamba_head_dim 80 = 10240, n_groups 8,
# ssm_state_size 128, conv_kernel 4 (llama_hparams::n_embd_r/n_embd_s):
#   n_embd_r = (4 - 1) x (10240 + 2 x 8 x 128) = 36864;  n_embd_s = 128 x 10240 = 1310720.
# Mixer parameters (split only): in_proj 4480 x (2x10240 + 2x8x128 + 128) = 101 498 880,
# out_proj 10240 x 4480 = 45 875 200, conv1d 12288 x 4 + bias 12288, A/D/dt_bias 3 x 128,
# norm 10240: 147 446 144.
# Query heads only on '*' layers too, so MLP-only layers carry no attention parameters.
def nemotron_h(pattern, n_head, n_kv, n_ff):
    return ([n_head if c == "*" else 0 for c in pattern],
            [n_kv if c == "*" else 0 for c in pattern], [n_ff if c == "-" else 0 for c in pattern],
            [i for i, c in enumerate(pattern) if c == "M"])
_heads, _kv, _ff, _recr = nemotron_h(NEMOTRON_NANO_9B_V2, 40, 8, 15680)
M.append(dense("nvidia-nemotron-nano-9b-v2", "NVIDIA Nemotron Nano 9B v2", "nemotron_h",
    [HF + "nvidia/NVIDIA-Nemotron-Nano-9B-v2/blob/main/config.json",
     HF + "dominguesm/NVIDIA-Nemotron-Nano-9B-v2-GGUF/tree/main"],
    131072, 131072, 4480, 56, _ff, _heads, _kv, 128, 9_000_000_000,
    hf_tree(HF + "dominguesm/NVIDIA-Nemotron-Nano-9B-v2-GGUF/tree/main", "nemotron-nano-9b-v2-{}.gguf",
            [("Q4_K_M", "6.53 GB"), ("Q4_K_S", "6.21 GB"), ("Q4_0", "5.31 GB"), ("Q2_K", "5.01 GB")],
            lower_in_name=True),
    ffn_gated=False,
    recurrent={"layers": _recr, "n_embd_r": 36864, "n_embd_s": 1310720,
               "mixer_params": 147_446_144}))

# --- Phi ---------------------------------------------------------------------------------
M.append(dense("phi-4", "Phi-4 14B", "phi3",
    [HF + "microsoft/phi-4/blob/main/config.json", HF + "microsoft/phi-4-gguf"],
    16384, 100352, 5120, 40, 17920, 40, 10, 128, 14_700_000_000,
    [q("Q4_K_S", 8_440_762_560, HF + "microsoft/phi-4-gguf/blob/main/phi-4-Q4_K_S.gguf")] +
    [card(qn, gb, HF + "bartowski/phi-4-GGUF/blob/main/phi-4-" + qn + ".gguf")
     for qn, gb in [("Q4_K_M", 9.05), ("Q5_K_M", 10.60), ("Q6_K", 12.03), ("Q8_0", 15.58)]]))
# Phi-4-reasoning: the model card ("Base model same as previously released Phi-4, 14B
# parameters, dense decoder-only Transformer"; "Context length 32k tokens", as a model page
# transcribes it with 40 layers, 10 KV heads of 128), so Phi-4's shapes above with a 32768
# context (ApX's page for the -plus sibling: 32,768 tokens, hidden 5120, 40 layers, 40 / 10
# heads, FFN 17920, vocab 100352). Sizes: bartowski's card as a public mirror prints it
# (decimal GB, two places); the Q4_K_M row was not in the copy read, so it is left out.
BPHIR = "bartowski/microsoft_Phi-4-reasoning-GGUF"
M.append(dense("phi-4-reasoning", "Phi-4-reasoning 14B", "phi3",
    [HF + "microsoft/Phi-4-reasoning/blob/main/config.json",
     "https://www.fitmyllm.com/model/phi-4-reasoning-14b", "https://apxml.com/models/phi-4-reasoning-plus",
     HF + BPHIR, "https://model.aibase.com/zh/models/details/1927649922535133184"],
    32768, 100352, 5120, 40, 17920, 40, 10, 128, 14_700_000_000,
    [card(qn, gb, HF + BPHIR + "/blob/main/microsoft_Phi-4-reasoning-" + qn + ".gguf")
     for qn, gb in [("Q5_K_M", 10.60), ("Q6_K", 12.03), ("Q8_0", 15.58)]]))


# --- LLaMA (2023) -------------------------------------------------------------------------
# The original LLaMA family, here because many published llama-bench results (the speed data
# set, tests/speed/) ran it. Dims from each huggyllama config.json and the LLaMA paper
# (arXiv 2302.13971, Table 2); MHA (n_head_kv = n_head), vocab 32000, context 2048. Q4_0 sizes:
# 7B is llama-bench's "3.56 GiB" (two decimals: +-5 MiB); the others are params x 4.5 bits per
# weight (a Q4_0 block stores 32 weights in 18 bytes), within the +-2 % of the output/embedding
# tensors that llama.cpp keeps at a different type.
LLAMA_PAPER = "https://arxiv.org/abs/2302.13971"
for lid, lname, embd, layers, heads, ff, params, q4 in [
        ("llama-7b", "LLaMA 7B", 4096, 32, 32, 11008, 6_740_000_000,
         q("Q4_0", round(3.56 * 2**30), "https://github.com/ggml-org/llama.cpp/pull/4766", 5 * 2**20)),
        ("llama-13b", "LLaMA 13B", 5120, 40, 40, 13824, 13_020_000_000, None),
        ("llama-30b", "LLaMA 30B (33B)", 6656, 60, 52, 17920, 32_530_000_000, None),
        ("llama-65b", "LLaMA 65B", 8192, 80, 64, 22016, 65_290_000_000, None)]:
    if q4 is None:
        q4 = q("Q4_0", params * 18 // 32, LLAMA_PAPER + " (params) x 4.5 bits per weight (Q4_0)",
               params * 18 // 32 // 50)
    M.append(dense(lid, lname, "llama",
        [HF + "huggyllama/" + lid + "/blob/main/config.json", LLAMA_PAPER],
        2048, 32000, embd, layers, ff, heads, heads, embd // heads, params, [q4]))


# =========================================================================================
# Issue 28: the models people run at the end of 2026. Sources of the figures below:
#  * config facts: each model's Hugging Face config.json (cited), read through the Megatron
#    recipes of THUDM/slime (scripts/models/*.sh, cited at the commit read: --num-layers,
#    --hidden-size, --ffn-hidden-size, heads / query groups, --kv-channels, vocab, experts) or
#    through the public notes named per entry;
#  * exact sizes: Hugging Face LFS sizes as public app catalogs record them -- LlamaBarn's
#    (ggml-org's macOS app, LlamaBarn/Catalog/Catalog+Data.swift; its history is in the
#    shaneholloman/llama-barn fork), and the pinned lists named per entry; each quant cites
#    the Hugging Face file itself;
#  * listed sizes: the card or file listing cited per quant, with its rounding.
# =========================================================================================
SLIME = {
    "deepseek-r1-distill-qwen-1.5B": "https://github.com/THUDM/slime/blob/fed4223997353614f94fc246e820ff01359b8a36/scripts/models/deepseek-r1-distill-qwen-1.5B.sh",
    "deepseek-v3-20layer": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/deepseek-v3-20layer.sh",
    "deepseek-v3-5layer": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/deepseek-v3-5layer.sh",
    "deepseek-v3": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/deepseek-v3.sh",
    "gemma4-12B": "https://github.com/THUDM/slime/blob/2a60f00dd27f716f8761464086f02b02061adff1/scripts/models/gemma4-12B.sh",
    "gemma4-26B-A4B": "https://github.com/THUDM/slime/blob/2a60f00dd27f716f8761464086f02b02061adff1/scripts/models/gemma4-26B-A4B.sh",
    "gemma4-31B": "https://github.com/THUDM/slime/blob/2a60f00dd27f716f8761464086f02b02061adff1/scripts/models/gemma4-31B.sh",
    "glm4-32B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm4-32B.sh",
    "glm4-9B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm4-9B.sh",
    "glm4.5-106B-A12B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm4.5-106B-A12B.sh",
    "glm4.5-355B-A32B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm4.5-355B-A32B.sh",
    "glm4.7-30B-A3B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm4.7-30B-A3B.sh",
    "glm5-744B-A40B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm5-744B-A40B.sh",
    "glm5.2-744B-A40B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm5.2-744B-A40B.sh",
    "gpt-oss-20B": "https://github.com/THUDM/slime/blob/2a60f00dd27f716f8761464086f02b02061adff1/scripts/models/gpt-oss-20B.sh",
    "kimi-k2-thinking": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/kimi-k2-thinking.sh",
    "kimi-k2": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/kimi-k2.sh",
    "llama3.1-8B-Instruct": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/llama3.1-8B-Instruct.sh",
    "llama3.2-3B-Instruct-amd": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/llama3.2-3B-Instruct-amd.sh",
    "llama3.2-3B-Instruct": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/llama3.2-3B-Instruct.sh",
    "mimo-7B-rl": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/mimo-7B-rl.sh",
    "minimax-m2": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/minimax-m2.sh",
    "moonlight": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/moonlight.sh",
    "nemotron-nano-30B-A3B": "https://github.com/THUDM/slime/blob/b6326a73a1974d0f313974b03f944aae85965978/scripts/models/nemotron-nano-30B-A3B.sh",
    "qwen2.5-0.5B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen2.5-0.5B.sh",
    "qwen2.5-1.5B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen2.5-1.5B.sh",
    "qwen2.5-32B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen2.5-32B.sh",
    "qwen2.5-3B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen2.5-3B.sh",
    "qwen2.5-7B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen2.5-7B.sh",
    "qwen3-0.6B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-0.6B.sh",
    "qwen3-1.7B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-1.7B.sh",
    "qwen3-14B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-14B.sh",
    "qwen3-235B-A22B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-235B-A22B.sh",
    "qwen3-30B-A3B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-30B-A3B.sh",
    "qwen3-32B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-32B.sh",
    "qwen3-4B-2507": "https://github.com/THUDM/slime/blob/1e1fce7dedc3b96fa91eb631b2f17c7d3a324440/scripts/models/qwen3-4B-2507.sh",
    "qwen3-4B-Instruct-2507": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-4B-Instruct-2507.sh",
    "qwen3-4B-Instruct": "https://github.com/THUDM/slime/blob/45300be89b2386a5e32dd9d4a5d517177a4ca03e/scripts/models/qwen3-4B-Instruct.sh",
    "qwen3-4B-instruct-2507": "https://github.com/THUDM/slime/blob/8748b7776cc1882b5c8a658a87d287b3707625f4/scripts/models/qwen3-4B-instruct-2507.sh",
    "qwen3-4B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-4B.sh",
    "qwen3-8B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-8B.sh",
    "qwen3-coder-30B-A3B-Instruct": "https://github.com/THUDM/slime/blob/e79dd7ab881301156c5917478dfa42b725cb3415/scripts/models/qwen3-coder-30B-A3B-Instruct.sh",
    "qwen3-next-80B-A3B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3-next-80B-A3B.sh",
    "qwen3-vl-235B-A22B-Instruct": "https://github.com/THUDM/slime/blob/abc1fee59f4926ff3c9ca4f20f47a0a190a1ac1b/scripts/models/qwen3-vl-235B-A22B-Instruct.sh",
    "qwen3-vl-235b-a22b": "https://github.com/THUDM/slime/blob/5da09d091049ba78593c7d48a5701cf3f58c2dbe/scripts/models/qwen3-vl-235b-a22b.sh",
    "qwen3-vl-2B-Instruct": "https://github.com/THUDM/slime/blob/abc1fee59f4926ff3c9ca4f20f47a0a190a1ac1b/scripts/models/qwen3-vl-2B-Instruct.sh",
    "qwen3-vl-2b": "https://github.com/THUDM/slime/blob/1766d0c24115d1a128f9632d5fc02bc720447dc7/scripts/models/qwen3-vl-2b.sh",
    "qwen3-vl-30B-A3B-Instruct": "https://github.com/THUDM/slime/blob/abc1fee59f4926ff3c9ca4f20f47a0a190a1ac1b/scripts/models/qwen3-vl-30B-A3B-Instruct.sh",
    "qwen3-vl-30b-a3b": "https://github.com/THUDM/slime/blob/5da09d091049ba78593c7d48a5701cf3f58c2dbe/scripts/models/qwen3-vl-30b-a3b.sh",
    "qwen3-vl-4B-Instruct": "https://github.com/THUDM/slime/blob/abc1fee59f4926ff3c9ca4f20f47a0a190a1ac1b/scripts/models/qwen3-vl-4B-Instruct.sh",
    "qwen3-vl-4b": "https://github.com/THUDM/slime/blob/1766d0c24115d1a128f9632d5fc02bc720447dc7/scripts/models/qwen3-vl-4b.sh",
    "qwen3-vl-8B": "https://github.com/THUDM/slime/blob/abba61ecda9b97c7e84a214697e77cf9b8b4d3f9/scripts/models/qwen3-vl-8B.sh",
    "qwen3-vl-8b-instruct": "https://github.com/THUDM/slime/blob/35ab396b6d5beeb9b6478e59aa17a5129013e680/scripts/models/qwen3-vl-8b-instruct.sh",
    "qwen3-vl-8b": "https://github.com/THUDM/slime/blob/1766d0c24115d1a128f9632d5fc02bc720447dc7/scripts/models/qwen3-vl-8b.sh",
    "qwen3.5-0.8B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3.5-0.8B.sh",
    "qwen3.5-27B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3.5-27B.sh",
    "qwen3.5-2B": "https://github.com/THUDM/slime/blob/148be654eaa11acdc5e0216bb2c1f26e3346aa9f/scripts/models/qwen3.5-2B.sh",
    "qwen3.5-35B-A3B-vl": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3.5-35B-A3B-vl.sh",
    "qwen3.5-35B-A3B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3.5-35B-A3B.sh",
    "qwen3.5-397B-A17B": "https://github.com/THUDM/slime/blob/aa84536b351586da7db37f74688d0550f3d333cf/scripts/models/qwen3.5-397B-A17B.sh",
    "qwen3.5-4B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3.5-4B.sh",
    "qwen3.5-9B": "https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/qwen3.5-9B.sh",
    "qwen36-35B-A3B": "https://github.com/THUDM/slime/blob/1713bae117e595f16a9d0ea1a9468ea4f20f8a4e/scripts/models/qwen36-35B-A3B.sh",
}
LB_FORK = "https://github.com/shaneholloman/llama-barn/blob/454ec068741b04750cc4bfc0cc57ab80d9e10a3b/LlamaBarn/Catalog/Catalog+Data.swift"
LB_APP = "https://github.com/ggml-org/LlamaBarn"


def hfres(repo, fname, rev="main"):
    return HF + f"{repo}/resolve/{rev}/{fname}"

# --- Qwen3 small, 2507 and Coder (qwen3 / qwen3moe) ------------------------------------
# Pinned bartowski/unsloth files with exact sizes from a public app catalog that read them from
# the Hugging Face API ("Curated text-only GGUF builds ... pinned rather than tracking main");
# its params are the GGUF tensor totals (Hugging Face's count of the tensors in the file).
PINNED_NOTE = "pinned Hugging Face API listing (exact LFS bytes)"
B_Q06 = "bartowski/Qwen_Qwen3-0.6B-GGUF"; R_Q06 = "60b85c0e3d8fe0f6474f406922a26d12aca4550d"
M.append(dense("qwen3-0.6b", "Qwen3 0.6B", "qwen3",
    [HF + "Qwen/Qwen3-0.6B/blob/main/config.json", SLIME["qwen3-0.6B"],
     HF + B_Q06 + "/tree/" + R_Q06],
    # The GGUF tensor total (751 632 384) is the config's tied count plus a stored output.weight
    # of 151936 x 1024: these files carry the head as its own tensor, so it is not tied here.
    40960, 151936, 1024, 28, 3072, 16, 8, 128, 751_632_384,
    [exact(qn, b, hfres(B_Q06, "Qwen_Qwen3-0.6B-" + qn + ".gguf", R_Q06)) for qn, b in
     [("Q4_K_M", 484_220_320), ("Q5_K_M", 551_378_336), ("Q6_K", 622_733_728), ("Q8_0", 804_753_824)]]))
B_Q17 = "bartowski/Qwen_Qwen3-1.7B-GGUF"; R_Q17 = "dcb19155b962dbb6389f4691a982043a8e651022"
M.append(dense("qwen3-1.7b", "Qwen3 1.7B", "qwen3",
    [HF + "Qwen/Qwen3-1.7B/blob/main/config.json", SLIME["qwen3-1.7B"],
     HF + B_Q17 + "/tree/" + R_Q17],
    # GGUF tensor total, a stored output.weight included (as for 0.6B)
    40960, 151936, 2048, 28, 6144, 16, 8, 128, 2_031_739_904,
    [exact(qn, b, hfres(B_Q17, "Qwen_Qwen3-1.7B-" + qn + ".gguf", R_Q17)) for qn, b in
     [("Q4_K_M", 1_282_439_584), ("Q5_K_M", 1_471_805_856), ("Q6_K", 1_673_007_520), ("Q8_0", 2_165_039_520)]]))
# Qwen3 2507 refresh: the same shapes as Qwen3-4B / Qwen3-30B-A3B (slime's 2507 recipes source
# the base ones and only change the RoPE base), trained to 262144 tokens (LlamaBarn ctxWindow,
# the GGUF context_length). Parameter counts: LlamaBarn's parameterCount.
B_Q4I = "bartowski/Qwen_Qwen3-4B-Instruct-2507-GGUF"; R_Q4I = "ae44f08e1392f39c0e474af10c3ff8355c8b6688"
M.append(dense("qwen3-4b-instruct-2507", "Qwen3 4B Instruct 2507", "qwen3",
    [HF + "Qwen/Qwen3-4B-Instruct-2507/blob/main/config.json", SLIME["qwen3-4B-Instruct-2507"],
     SLIME["qwen3-4B"], HF + B_Q4I + "/tree/" + R_Q4I, LB_FORK],
    262144, 151936, 2560, 36, 9728, 32, 8, 128, 4_022_468_096,
    [exact(qn, b, hfres(B_Q4I, "Qwen_Qwen3-4B-Instruct-2507-" + qn + ".gguf", R_Q4I)) for qn, b in
     [("Q4_K_M", 2_497_280_736), ("Q5_K_M", 2_889_513_696), ("Q6_K", 3_306_261_216), ("Q8_0", 4_280_405_216)]],
    tied=True))
M.append(dense("qwen3-4b-thinking-2507", "Qwen3 4B Thinking 2507", "qwen3",
    [HF + "Qwen/Qwen3-4B-Thinking-2507/blob/main/config.json", SLIME["qwen3-4B"], LB_FORK],
    262144, 151936, 2560, 36, 9728, 32, 8, 128, 4_022_468_096,
    [exact("Q4_K_M", 2_497_281_152, hfres("unsloth/Qwen3-4B-Thinking-2507-GGUF", "Qwen3-4B-Thinking-2507-Q4_K_M.gguf")),
     exact("Q8_0", 4_280_405_632, hfres("ggml-org/Qwen3-4B-Thinking-2507-Q8_0-GGUF", "qwen3-4b-thinking-2507-q8_0.gguf"))],
    tied=True))
QWEN3_30B_MOE = {"n_expert": 128, "n_expert_used": 8, "n_ff_exp": 768}
# A public llama.cpp test basket's exact sizes (HRX2 basket, Hugging Face resolve/main).
U30I = "unsloth/Qwen3-30B-A3B-Instruct-2507-GGUF"
M.append(dense("qwen3-30b-a3b-instruct-2507", "Qwen3 30B-A3B Instruct 2507", "qwen3moe",
    [HF + "Qwen/Qwen3-30B-A3B-Instruct-2507/blob/main/config.json", SLIME["qwen3-30B-A3B"],
     HF + U30I + "/tree/main", LB_FORK],
    262144, 151936, 2048, 48, 0, 32, 4, 128, 30_532_122_624,
    [exact("Q4_K_M", 18_556_686_752, hfres(U30I, "Qwen3-30B-A3B-Instruct-2507-Q4_K_M.gguf")),
     exact("UD-Q4_K_XL", 17_690_497_440, hfres(U30I, "Qwen3-30B-A3B-Instruct-2507-UD-Q4_K_XL.gguf")),
     exact("IQ4_XS", 16_378_073_504, hfres(U30I, "Qwen3-30B-A3B-Instruct-2507-IQ4_XS.gguf")),
     exact("Q5_K_M", 21_725_581_728, hfres(U30I, "Qwen3-30B-A3B-Instruct-2507-Q5_K_M.gguf")),
     exact("Q6_K", 25_092_532_640, hfres(U30I, "Qwen3-30B-A3B-Instruct-2507-Q6_K.gguf")),
     exact("Q8_0", 32_483_932_576, hfres(U30I, "Qwen3-30B-A3B-Instruct-2507-Q8_0.gguf"))],
    moe=QWEN3_30B_MOE, active=3_300_000_000))
M.append(dense("qwen3-30b-a3b-thinking-2507", "Qwen3 30B-A3B Thinking 2507", "qwen3moe",
    [HF + "Qwen/Qwen3-30B-A3B-Thinking-2507/blob/main/config.json", SLIME["qwen3-30B-A3B"], LB_FORK],
    262144, 151936, 2048, 48, 0, 32, 4, 128, 30_532_122_624,
    [exact("Q4_K_M", 18_556_686_752, hfres("unsloth/Qwen3-30B-A3B-Thinking-2507-GGUF", "Qwen3-30B-A3B-Thinking-2507-Q4_K_M.gguf")),
     exact("Q8_0", 32_483_931_872, hfres("ggml-org/Qwen3-30B-A3B-Thinking-2507-Q8_0-GGUF", "qwen3-30b-a3b-thinking-2507-q8_0.gguf"))],
    moe=QWEN3_30B_MOE, active=3_300_000_000))
UC30 = "unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF"; RC30 = "b17cb02dd882d5b6ab62fc777ad2995f19668350"
M.append(dense("qwen3-coder-30b-a3b-instruct", "Qwen3 Coder 30B-A3B Instruct", "qwen3moe",
    [HF + "Qwen/Qwen3-Coder-30B-A3B-Instruct/blob/main/config.json",
     SLIME["qwen3-coder-30B-A3B-Instruct"], SLIME["qwen3-30B-A3B"], HF + UC30 + "/tree/" + RC30],
    262144, 151936, 2048, 48, 0, 32, 4, 128, 30_532_122_624,
    [exact(qn, b, hfres(UC30, "Qwen3-Coder-30B-A3B-Instruct-" + qn + ".gguf", RC30)) for qn, b in
     [("Q3_K_M", 14_711_850_144), ("Q4_K_M", 18_556_689_568), ("Q5_K_M", 21_725_584_544),
      ("Q6_K", 25_092_535_456), ("Q8_0", 32_483_935_392)]] +
    [exact("UD-Q4_K_XL", 17_665_334_432, hfres(UC30, "Qwen3-Coder-30B-A3B-Instruct-UD-Q4_K_XL.gguf"))],
    moe=QWEN3_30B_MOE, active=3_300_000_000))
# DeepSeek-R1-0528-Qwen3-8B: Qwen3-8B's shapes (a distillation into that model), LlamaBarn sizes.
M.append(dense("deepseek-r1-0528-qwen3-8b", "DeepSeek-R1-0528-Qwen3-8B", "qwen3",
    [HF + "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B/blob/main/config.json", SLIME["qwen3-8B"],
     "https://github.com/shaneholloman/llama-barn/blob/ab6fe1687fd90ae7828c7257c1df7f9f050d6325/LlamaBarn/Catalog/Catalog.swift"],
    131072, 151936, 4096, 36, 12288, 32, 8, 128, 8_190_000_000,
    [exact("Q4_K_M", 5_027_785_216, hfres("unsloth/DeepSeek-R1-0528-Qwen3-8B-GGUF", "DeepSeek-R1-0528-Qwen3-8B-Q4_K_M.gguf")),
     exact("Q8_0", 8_709_519_872, hfres("unsloth/DeepSeek-R1-0528-Qwen3-8B-GGUF", "DeepSeek-R1-0528-Qwen3-8B-Q8_0.gguf"))]))

# --- Qwen3.5 / Qwen3.6 (qwen35 dense, qwen35moe): Gated DeltaNet + gated attention ---------
# Layout from the model cards ("Hidden Layout: N x (3 x (Gated DeltaNet -> FFN/MoE) -> 1 x (Gated
# Attention -> FFN/MoE))", i.e. full attention on every 4th layer, llama.cpp's
# full_attention_interval 4), attention and linear-attention heads from the cards and the
# config.json notes cited per entry; widths, FFN and expert sizes from the slime recipes.
# Recurrent state as llama_hparams::n_embd_r()/n_embd_s() compute it from the converter's keys
# (ssm_d_conv = linear_conv_kernel_dim 4, ssm_d_state = linear_key_head_dim 128, ssm_n_group =
# linear_num_key_heads, ssm_d_inner = linear_num_value_heads x linear_value_head_dim):
#   n_embd_r = 3 x (d_inner + 2 x n_group x 128), n_embd_s = 128 x d_inner.
# Mixer parameters per linear-attention layer (modeling_qwen3_5: in_proj_qkv, in_proj_z,
# in_proj_a, in_proj_b, out_proj, conv1d): d x (2 x kh x 128 + d_inner) + d x d_inner + 2 x d x vh
# + d_inner x d + 4 x (2 x kh x 128 + d_inner). The gated attention's q_proj also carries the
# output gate (query and gate chunked from one projection), n_head x 256 x d more per full layer,
# which the catalog's attention split does not count: it is the PARAM_EXTRA term below.
# MTP: the cards train one MTP block; the Hugging Face files cited here were converted without
# it (the trunk only), so no nextn layer is listed -- a file's own header decides.
# Sizes: LlamaBarn's catalog (unsloth files, exact) and a second app catalog (keryx: "Every
# file, size and SHA-256 below was read from the Hugging Face API on 2026-10-04").
# Parameter counts: LlamaBarn's parameterCount (the text model's tensors, the vision tower not
# included), or the card where LlamaBarn only repeats it (122B, 397B).
QWEN35_CARD = "https://github.com/nerdpudding/llama_cpp/blob/3371ecbaaf117de355887c2b6c20a8d87f908e54/models/documentation/CANDIDATES/"
LB_QWEN35 = "LlamaBarn catalog, Qwen 3.5 families (unsloth files, exact LFS bytes)"


def qwen35(id, name, arch, repo, sources, embd, layers, heads, kv, lin_v, lin_k, params, quants,
           ff=0, moe=None, tied=False, active=None, mmproj_file="mmproj-F16.gguf"):
    d_inner = lin_v * 128
    mixer = (embd * (2 * lin_k * 128 + d_inner) + embd * d_inner + 2 * embd * lin_v +
             d_inner * embd + 4 * (2 * lin_k * 128 + d_inner))
    PARAM_EXTRA[id] = (layers // 4 * heads * 256 * embd,
                       "gated attention: q_proj carries the output gate (n_head x 256 x n_embd)")
    return dense(id, name, arch, [HF + repo + "/tree/main"] + sources,
        262144, 248320, embd, layers, ff, heads, kv, 256, params, quants, tied=tied, active=active,
        recurrent={"period": 4, "full_at": "end", "n_embd_r": 3 * (d_inner + 2 * lin_k * 128),
                   "n_embd_s": 128 * d_inner, "mixer_params": mixer},
        **({"moe": moe} if moe else {}))


def us(repo, fname):
    return hfres("unsloth/" + repo, fname)


M.append(qwen35("qwen3.5-0.8b", "Qwen3.5 0.8B", "qwen35", "unsloth/Qwen3.5-0.8B-GGUF",
    [HF + "Qwen/Qwen3.5-0.8B/blob/main/config.json", SLIME["qwen3.5-0.8B"]],
    1024, 24, 8, 2, 16, 16, 758_372_368,
    [exact("Q8_0", 811_843_840, us("Qwen3.5-0.8B-GGUF", "Qwen3.5-0.8B-Q8_0.gguf")),
     exact("UD-Q4_K_XL", 558_772_480, us("Qwen3.5-0.8B-GGUF", "Qwen3.5-0.8B-UD-Q4_K_XL.gguf"))],
    ff=3584, tied=True))
M.append(qwen35("qwen3.5-2b", "Qwen3.5 2B", "qwen35", "unsloth/Qwen3.5-2B-GGUF",
    [HF + "Qwen/Qwen3.5-2B/blob/main/config.json", SLIME["qwen3.5-2B"]],
    2048, 24, 8, 2, 16, 16, 1_887_854_608,
    [exact("Q8_0", 2_012_012_800, us("Qwen3.5-2B-GGUF", "Qwen3.5-2B-Q8_0.gguf")),
     exact("UD-Q4_K_XL", 1_339_752_704, us("Qwen3.5-2B-GGUF", "Qwen3.5-2B-UD-Q4_K_XL.gguf"))],
    ff=6144, tied=True))
M.append(qwen35("qwen3.5-4b", "Qwen3.5 4B", "qwen35", "unsloth/Qwen3.5-4B-GGUF",
    [HF + "Qwen/Qwen3.5-4B/blob/main/config.json", SLIME["qwen3.5-4B"]],
    2560, 32, 16, 4, 32, 16, 4_212_196_816,
    [exact("Q4_K_M", 2_740_937_888, us("Qwen3.5-4B-GGUF", "Qwen3.5-4B-Q4_K_M.gguf")),
     exact("UD-Q4_K_XL", 2_912_109_728, us("Qwen3.5-4B-GGUF", "Qwen3.5-4B-UD-Q4_K_XL.gguf")),
     exact("Q8_0", 4_482_403_488, us("Qwen3.5-4B-GGUF", "Qwen3.5-4B-Q8_0.gguf"))],
    ff=9216, tied=True))
M.append(qwen35("qwen3.5-9b", "Qwen3.5 9B", "qwen35", "unsloth/Qwen3.5-9B-GGUF",
    [HF + "Qwen/Qwen3.5-9B/blob/main/config.json", SLIME["qwen3.5-9B"],
     "https://lzwjava.github.io/qwen3-5-9b-hybrid-review-en", "https://apxml.com/models/qwen35-9b"],
    4096, 32, 16, 4, 32, 16, 8_960_348_656,
    [exact("Q4_K_M", 5_680_522_464, us("Qwen3.5-9B-GGUF", "Qwen3.5-9B-Q4_K_M.gguf")),
     exact("UD-Q4_K_XL", 5_966_095_584, us("Qwen3.5-9B-GGUF", "Qwen3.5-9B-UD-Q4_K_XL.gguf")),
     exact("Q8_0", 9_527_502_048, us("Qwen3.5-9B-GGUF", "Qwen3.5-9B-Q8_0.gguf"))],
    ff=12288))
# 27B: the card prints "Hidden Dimension: 4096", but slime's recipe (--hidden-size 5120) and the
# parameter count (26.88B only adds up with 5120) agree on 5120.
M.append(qwen35("qwen3.5-27b", "Qwen3.5 27B", "qwen35", "unsloth/Qwen3.5-27B-GGUF",
    [HF + "Qwen/Qwen3.5-27B/blob/main/config.json", SLIME["qwen3.5-27B"],
     "https://github.com/nerdpudding/llama_cpp/blob/bdd0b6ba2c9985cb38f3b9089d4c2299b95dd05f/models/documentation/CANDIDATES/README_Qwen3.5-27B-GGUF.md"],
    5120, 64, 24, 4, 48, 16, 26_883_041_792,
    [exact("Q4_K_M", 16_740_812_704, us("Qwen3.5-27B-GGUF", "Qwen3.5-27B-Q4_K_M.gguf")),
     exact("UD-Q4_K_XL", 17_621_125_024, us("Qwen3.5-27B-GGUF", "Qwen3.5-27B-UD-Q4_K_XL.gguf")),
     exact("Q8_0", 28_595_763_104, us("Qwen3.5-27B-GGUF", "Qwen3.5-27B-Q8_0.gguf"))],
    ff=17408))
M.append(qwen35("qwen3.5-35b-a3b", "Qwen3.5 35B-A3B", "qwen35moe", "unsloth/Qwen3.5-35B-A3B-GGUF",
    [HF + "Qwen/Qwen3.5-35B-A3B/blob/main/config.json", SLIME["qwen3.5-35B-A3B"],
     QWEN35_CARD + "README_Qwen3.5-35B-A3B-GGUF.md"],
    2048, 40, 16, 2, 32, 16, 34_691_457_024,
    [exact("Q4_K_M", 22_016_023_168, us("Qwen3.5-35B-A3B-GGUF", "Qwen3.5-35B-A3B-Q4_K_M.gguf")),
     exact("UD-Q4_K_XL", 22_241_950_336, us("Qwen3.5-35B-A3B-GGUF", "Qwen3.5-35B-A3B-UD-Q4_K_XL.gguf")),
     exact("Q8_0", 36_903_139_968, us("Qwen3.5-35B-A3B-GGUF", "Qwen3.5-35B-A3B-Q8_0.gguf"))],
    moe={"n_expert": 256, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 512, "n_ff_shexp": 512},
    active=3_000_000_000))
M.append(qwen35("qwen3.5-122b-a10b", "Qwen3.5 122B-A10B", "qwen35moe", "unsloth/Qwen3.5-122B-A10B-GGUF",
    [HF + "Qwen/Qwen3.5-122B-A10B/blob/main/config.json", QWEN35_CARD + "README_Qwen3.5-122B-A10B-GGUF.md"],
    3072, 48, 32, 2, 64, 16, 122_000_000_000,
    # split files; the catalog records each quant's parts together
    [exact("Q4_K_M", 76_536_964_608, us("Qwen3.5-122B-A10B-GGUF", "Q4_K_M (3 parts)")),
     exact("UD-Q4_K_XL", 68_357_580_224, us("Qwen3.5-122B-A10B-GGUF", "UD-Q4_K_XL (3 parts)")),
     exact("Q8_0", 129_871_935_040, us("Qwen3.5-122B-A10B-GGUF", "Q8_0 (4 parts)"))],
    moe={"n_expert": 256, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 1024, "n_ff_shexp": 1024},
    active=10_000_000_000))
M.append(qwen35("qwen3.5-397b-a17b", "Qwen3.5 397B-A17B", "qwen35moe", "unsloth/Qwen3.5-397B-A17B-GGUF",
    [HF + "Qwen/Qwen3.5-397B-A17B/blob/84726181/config.json", SLIME["qwen3.5-397B-A17B"]],
    4096, 60, 32, 2, 64, 16, 397_000_000_000,
    [exact("Q4_K_M", 244_093_630_912, us("Qwen3.5-397B-A17B-GGUF", "Q4_K_M (6 parts)")),
     exact("UD-Q4_K_XL", 219_216_328_992, us("Qwen3.5-397B-A17B-GGUF", "UD-Q4_K_XL (6 parts)")),
     exact("Q8_0", 421_507_365_376, us("Qwen3.5-397B-A17B-GGUF", "Q8_0 (10 parts)"))],
    moe={"n_expert": 512, "n_expert_used": 10, "n_expert_shared": 1, "n_ff_exp": 1024, "n_ff_shexp": 1024},
    active=17_000_000_000))
# Qwen3.6 keeps Qwen3.5's architecture (the same Qwen3_5MoeForConditionalGeneration class, the
# same DeltaNet, MoE and layer fields: a public inventory of the two snapshots' config.json).
M.append(qwen35("qwen3.6-27b", "Qwen3.6 27B", "qwen35", "unsloth/Qwen3.6-27B-GGUF",
    [HF + "Qwen/Qwen3.6-27B/blob/main/config.json", SLIME["qwen3.5-27B"]],
    5120, 64, 24, 4, 48, 16, 26_895_998_464,
    [exact("Q4_K_M", 16_817_244_384, us("Qwen3.6-27B-GGUF", "Qwen3.6-27B-Q4_K_M.gguf")),
     exact("Q8_0", 28_595_763_424, us("Qwen3.6-27B-GGUF", "Qwen3.6-27B-Q8_0.gguf"))],
    ff=17408))
U36 = "Qwen3.6-35B-A3B-GGUF"
M.append(qwen35("qwen3.6-35b-a3b", "Qwen3.6 35B-A3B", "qwen35moe", "unsloth/" + U36,
    [HF + "Qwen/Qwen3.6-35B-A3B/blob/main/config.json", SLIME["qwen36-35B-A3B"], SLIME["qwen3.5-35B-A3B"]],
    2048, 40, 16, 2, 32, 16, 34_660_610_688,
    [exact("UD-Q4_K_M", 22_134_528_992, us(U36, "Qwen3.6-35B-A3B-UD-Q4_K_M.gguf")),
     exact("Q8_0", 36_903_140_320, us(U36, "Qwen3.6-35B-A3B-Q8_0.gguf"))] +
    # LlamaBarn's "U-Qwen 3.6" family copies the file listing's rounded sizes ("21.7 GB"):
    # three significant digits, +-50 MB.
    [hf(qn, gb, us(U36, "Qwen3.6-35B-A3B-" + qn + ".gguf")) for qn, gb in
     [("UD-IQ4_XS", "17.7 GB"), ("MXFP4_MOE", "21.7 GB"), ("UD-Q4_K_XL", "22.4 GB"),
      ("UD-Q5_K_M", "26.5 GB"), ("UD-Q6_K", "29.3 GB")]],
    moe={"n_expert": 256, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 512, "n_ff_shexp": 512},
    active=3_000_000_000))

# --- GLM-4.7-Flash (Glm4MoeLiteForCausalLM -> llama.cpp deepseek2: MLA + MoE) -------------
# slime's recipe for zai-org/GLM-4.7-Flash: 47 layers (1 dense + 46 MoE), hidden 2048, dense FFN
# 10240, 20 heads, q_lora_rank 768, kv_lora_rank 512, --qk-head-dim 192 (Megatron's no-RoPE
# part: config.json qk_nope_head_dim 192, as two public config copies quote it) + rope 64 = 256
# per query/key head, v_head_dim 256, 64 routed experts of 1536, 4 per token, 1 shared of 1536,
# vocab 154880. The
# converter registers it as DeepseekV2Model (a quantizer's card quoting the change), so the
# GGUF is deepseek2 with MLA: one latent row of 512 + 64 per token and layer, no V. Context
# 202752 and the parameter count: LlamaBarn.
M.append(dense("glm-4.7-flash", "GLM-4.7-Flash (30B-A3B)", "deepseek2",
    [HF + "zai-org/GLM-4.7-Flash/blob/main/config.json", SLIME["glm4.7-30B-A3B"], LB_FORK,
     "https://fast.hugflare.com/solarkyle/GLM-4.7-Flash-GGUF/blob/main/README.md",
     "https://mygguf.com/models/bartowski_zai-org_GLM-4.7-Flash-GGUF"],
    202752, 154880, 2048, 47, 10240, 20, 20, 256, 29_943_393_920,
    [exact("Q4_K", 18_244_193_920, hfres("ggml-org/GLM-4.7-Flash-GGUF", "GLM-4.7-Flash-Q4_K.gguf")),
     exact("Q8_0", 31_842_799_232, hfres("ggml-org/GLM-4.7-Flash-GGUF", "GLM-4.7-Flash-Q8_0.gguf"))] +
    # bartowski's card (read through a mirror that copies it), two decimals of GB
    [card(qn, gb, HF + "bartowski/zai-org_GLM-4.7-Flash-GGUF/blob/main/zai-org_GLM-4.7-Flash-" + qn + ".gguf")
     for qn, gb in [("Q4_K_S", 17.78), ("Q4_K_M", 18.47), ("Q5_K_M", 21.57), ("Q6_K", 24.83)]],
    attention={"head_dim_v": 256, "kv_lora_rank": 512, "rope_dim": 64, "q_lora_rank": 768},
    moe={"n_expert": 64, "n_expert_used": 4, "n_expert_shared": 1, "n_ff_exp": 1536,
         "n_ff_shexp": 1536, "dense_lead": 1},
    active=3_000_000_000))

# --- GLM-4.5 / 4.6 / 4.7 (glm4moe) ------------------------------------------------------
# slime's recipes: GLM-4.5 (355B-A32B) 3 dense + 89 MoE layers, hidden 5120, dense FFN 12288,
# 96 heads, 8 KV heads, kv-channels 128, 160 experts of 1536 (top 8), 1 shared of 1536, vocab
# 151552; GLM-4.5-Air (106B-A12B) 1 dense + 45 MoE, hidden 4096, dense FFN 10944, 96/8 heads of
# 128, 128 experts of 1408 (top 8), 1 shared of 1408. Both carry one MTP block
# (num_nextn_predict_layers 1), which the converter writes as block 92 / 46 (block_count 93 / 47,
# conversion/glm.py) and llama.cpp skips unless MTP is on. GLM-4.6 and GLM-4.7 keep GLM-4.5's
# shapes (public copies of their config.json: hidden 5120, 92 layers, 96/8 heads of 128, 160
# experts of 1536, first_k_dense_replace 3, nextn 1) with max_position_embeddings 202752;
# GLM-4.5's is 131072 (a KV-cache calculator's configs "fetched from HuggingFace").
# Sizes: ubergarm's cards print llama.cpp's size of the baseline Q8_0 ("353.259 GiB").
GLM_SRC = ["https://github.com/THUDM/slime/blob/624b824a898ab0ec1fcb4d373004c7f3852bf515/scripts/models/glm4.5-355B-A32B.sh"]
GLM_MOE = {"n_expert": 160, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 1536,
           "n_ff_shexp": 1536, "dense_lead": 3}
M.append(dense("glm-4.5-air", "GLM-4.5-Air (106B-A12B)", "glm4moe",
    [HF + "zai-org/GLM-4.5-Air/blob/main/config.json", SLIME["glm4.5-106B-A12B"],
     "https://worker-huggingface.ww6410.workers.dev/ubergarm/GLM-4.5-Air-GGUF/resolve/main/README.md"],
    131072, 151552, 4096, 47, 10944, 96, 8, 128, 106_000_000_000,
    [gib("Q8_0", "109.381 GiB", HF + "ubergarm/GLM-4.5-Air-GGUF/blob/main/README.md#quant-collection")],
    nextn_layers=1,
    moe={"n_expert": 128, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 1408,
         "n_ff_shexp": 1408, "dense_lead": 1},
    active=12_000_000_000))
# GLM-4.5 itself: slime's GLM-4.5 recipe above (the shapes GLM-4.6 keeps), 131072 context as
# for GLM-4.5-Air. Sizes: AesSedai's mainline-llama.cpp quants, named as the card names them
# (default type - FFN up - FFN gate - FFN down expert types), which print llama.cpp's size line
# in GiB with two decimals ("128.18 GiB (3.07 BPW)"; +-0.005 GiB).
AES45 = HF + "AesSedai/GLM-4.5-GGUF"
M.append(dense("glm-4.5", "GLM-4.5 (355B-A32B)", "glm4moe",
    [HF + "zai-org/GLM-4.5/blob/main/config.json", SLIME["glm4.5-355B-A32B"], AES45,
     "https://hf.barry1.top/AesSedai/GLM-4.5-GGUF"],
    131072, 151552, 5120, 93, 12288, 96, 8, 128, 355_000_000_000,
    [gib("Q6_K-Q2_K-Q2_K-Q3_K", "129.57 GiB", AES45 + "#llamacpp-imatrix-quantizations-of-zai-orgglm-45"),
     gib("Q6_K-IQ2_S-IQ2_S-IQ3_S", "128.18 GiB", AES45 + "#llamacpp-imatrix-quantizations-of-zai-orgglm-45")],
    nextn_layers=1, moe=GLM_MOE, active=32_000_000_000))
M.append(dense("glm-4.6", "GLM-4.6 (355B-A32B)", "glm4moe",
    [HF + "zai-org/GLM-4.6/blob/main/config.json", SLIME["glm4.5-355B-A32B"],
     "http://hf.privai.fun/ubergarm/GLM-4.6-GGUF/resolve/main/README.md"],
    202752, 151552, 5120, 93, 12288, 96, 8, 128, 355_000_000_000,
    [gib("Q8_0", "353.259 GiB", HF + "ubergarm/GLM-4.6-GGUF/blob/main/README.md#quant-collection")],
    nextn_layers=1, moe=GLM_MOE, active=32_000_000_000))
M.append(dense("glm-4.7", "GLM-4.7 (355B-A32B)", "glm4moe",
    [HF + "zai-org/GLM-4.7/blob/main/config.json", SLIME["glm4.5-355B-A32B"],
     "https://hf.ixdev.cn/ubergarm/GLM-4.7-GGUF/resolve/main/README.md",
     "https://hff.sound2gd.work/AesSedai/GLM-4.7-GGUF"],
    202752, 151552, 5120, 93, 12288, 96, 8, 128, 355_000_000_000,
    [gib("Q8_0", "354.794 GiB", HF + "ubergarm/GLM-4.7-GGUF/blob/main/README.md#quant-collection")],
    nextn_layers=1, moe=GLM_MOE, active=32_000_000_000))

# --- Kimi K2 (DeepseekV3ForCausalLM -> deepseek2: MLA + MoE) ------------------------------
# slime's recipes for Kimi-K2 and Kimi-K2-Thinking: 61 layers (first_k_dense_replace 1), hidden
# 7168, dense FFN 18432, 64 heads, q_lora_rank 1536, kv_lora_rank 512, --qk-head-dim 128 (no-RoPE
# part) + 64 rope = 192 per query/key head, v_head_dim 128, 384 experts of 2048 (top 8), 1 shared
# of 2048, vocab 163840. Context: K2-Instruct 131072 (a KV-cache calculator's configs fetched
# from Hugging Face); K2-Thinking 262144 (YaRN factor 64 over 4096 in its recipe's
# --rotary-scaling-factor, the config's rope_scaling). KV priced as MLA (576 per token and
# layer, no V), as for DeepSeek-V3 above. No MTP block (num_nextn_predict_layers 0). Parameters:
# "1.04 trillion total parameters with 32 billion activated" (the Kimi K2 technical report, as
# the K2.5 report restates it).
KIMI_REPORT = "https://arxiv.org/abs/2507.20534"
KIMI_MOE = {"n_expert": 384, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 2048,
            "n_ff_shexp": 2048, "dense_lead": 1}
KIMI_MLA = {"head_dim_v": 128, "kv_lora_rank": 512, "rope_dim": 64, "q_lora_rank": 1536}
# ubergarm's Q4_X: a Q4_0 variant fitted to the model's native INT4 (QAT) experts that "runs on
# both mainline llama.cpp and ik_llama.cpp"; the card prints llama.cpp's "543.617 GiB".
M.append(dense("kimi-k2-thinking", "Kimi K2 Thinking (1T-A32B)", "deepseek2",
    [HF + "moonshotai/Kimi-K2-Thinking/blob/main/config.json", SLIME["kimi-k2-thinking"],
     "https://huface.ru/ubergarm/Kimi-K2-Thinking-GGUF", KIMI_REPORT],
    262144, 163840, 7168, 61, 18432, 64, 64, 192, 1_040_000_000_000,
    [gib("Q4_X", "543.617 GiB", HF + "ubergarm/Kimi-K2-Thinking-GGUF/blob/main/README.md#quant-collection")],
    attention=KIMI_MLA, moe=KIMI_MOE, active=32_000_000_000))

# --- Mistral Small 3.2, Ministral 3 (Mistral3ForConditionalGeneration -> llama.cpp mistral3) --
# llama.cpp v0.5.0 converts Mistral3ForConditionalGeneration / Ministral3ForCausalLM to the
# mistral3 architecture (conversion/mistral3.py); files converted before it exist as llama --
# the same transformer to Headroom, and a file's own header decides.
# Mistral Small 3.x 24B text model: a public copy of its Mistral3 config.json (text_config:
# hidden 5120, 40 layers, 32 heads, 8 KV heads, head_dim 128, intermediate 32768, vocab 131072,
# max_position_embeddings 131072), matching NVIDIA's model card (40 layers, dim 5120, head dim
# 128, hidden dim 32768). Sizes: the HRX2 llama.cpp basket (unsloth files, exact).
MS3_SRC = ["https://docs.api.nvidia.com/nim/reference/mistralai-mistral-small-24b-instruct",
           "https://www.fitmyllm.com/model/mistral-small-3.1-24b"]
M.append(dense("mistral-small-3.2-24b-instruct-2506", "Mistral Small 3.2 24B Instruct 2506", "mistral3",
    [HF + "mistralai/Mistral-Small-3.2-24B-Instruct-2506/blob/main/config.json"] + MS3_SRC,
    131072, 131072, 5120, 40, 32768, 32, 8, 128, 24_000_000_000,
    [exact("Q4_K_M", 14_333_922_848, hfres("unsloth/Mistral-Small-3.2-24B-Instruct-2506-GGUF", "Mistral-Small-3.2-24B-Instruct-2506-Q4_K_M.gguf")),
     exact("Q6_K", 19_345_952_288, hfres("unsloth/Mistral-Small-3.2-24B-Instruct-2506-GGUF", "Mistral-Small-3.2-24B-Instruct-2506-Q6_K.gguf"))]))
# Ministral 3 (2512): 3B = 26 layers, hidden 3072, 32 heads / 8 KV of 128, FFN 9216, tied
# embeddings, a 3.4B language decoder; 14B = 40 layers, 5120, 32 / 8 of 128, FFN 16384, a 13.5B
# language core (ApX's model pages, NVIDIA Megatron-Bridge's Ministral 3 page); vocab 131072,
# context 262144 (LlamaBarn). Sizes: LlamaBarn (mistralai Q4_K_M, ggml-org Q8_0).
MIN3 = ["https://docs.nvidia.com/nemo/megatron-bridge/nightly/models/vlm/ministral3.html", LB_FORK]
for size, variant, embd, layers, ff, tied, params, q4, q8 in [
        ("3B", "Instruct", 3072, 26, 9216, True, 3_400_000_000, 2_147_023_008, 3_913_606_144),
        ("3B", "Reasoning", 3072, 26, 9216, True, 3_400_000_000, 2_147_021_472, 3_916_269_568),
        ("14B", "Instruct", 5120, 40, 16384, False, 13_500_000_000, 8_239_593_024, 14_359_311_264),
        ("14B", "Reasoning", 5120, 40, 16384, False, 13_500_000_000, 8_239_591_488, 14_359_309_728)]:
    base = f"Ministral-3-{size}-{variant}-2512"
    M.append(dense(base.lower(), f"Ministral 3 {size} {variant} 2512", "mistral3",
        [HF + f"mistralai/{base}/blob/main/config.json",
         f"https://apxml.com/models/ministral-3-{size.lower()}"] + MIN3,
        262144, 131072, embd, layers, ff, 32, 8, 128, params,
        [exact("Q4_K_M", q4, hfres(f"mistralai/{base}-GGUF", f"{base}-Q4_K_M.gguf")),
         exact("Q8_0", q8, hfres(f"ggml-org/{base}-GGUF", f"{base}-Q8_0.gguf"))],
        tied=tied))

# --- Qwen3-VL (qwen3vl / qwen3vlmoe) ------------------------------------------------------
# The language models of slime's Qwen3-VL recipes: 2B = 28 layers, 2048, FFN 6144, 16 heads / 8
# KV, tied; 4B = 36, 2560, 9728, 32 / 8, tied; 8B = 36, 4096, 12288, 32 / 8; 30B-A3B = 48, 2048,
# 32 / 4, 128 experts of 768 (top 8); all head_dim 128, vocab 151936, context 262144. 32B: the
# official GGUF's LlamaBarn entry (ctxWindow 262144) and Qwen3-32B's shapes (64 layers, 5120,
# FFN 25600, 64 / 8) -- the LM the VL model extends. Sizes: LlamaBarn (Qwen's own GGUFs).
# LlamaBarn's parameter counts include the vision tower (30B-A3B: 31.07B, 2B: 2.13B), which is
# in the mmproj file, not in these; the self-check's bits-per-weight test flagged them (a 2B Q8_0
# at 6.9 bits). params.total is therefore the language model's: that of the Qwen3 model with the
# same shapes -- 1.7B's GGUF total less its stored output head (2 031 739 904 - 151936 x 2048),
# 4B's 4 022 468 096, 8B's and 32B's card figures, 30B-A3B's 30 532 122 624.
QVL = {"2B": (2048, 28, 6144, 16, 8, True, 2_031_739_904 - 151936 * 2048, "qwen3-vl-2b"),
       "4B": (2560, 36, 9728, 32, 8, True, 4_022_468_096, "qwen3-vl-4b"),
       "8B": (4096, 36, 12288, 32, 8, False, 8_190_000_000, "qwen3-vl-8b"),
       "32B": (5120, 64, 25600, 64, 8, False, 32_800_000_000, "qwen3-32B")}
QVL_SIZES = {("2B", "Instruct"): (1_107_409_952, 1_834_427_424), ("2B", "Thinking"): (1_107_409_888, 1_834_427_360),
             ("4B", "Instruct"): (2_497_281_664, 4_280_406_144), ("4B", "Thinking"): (2_497_281_472, 4_280_405_952),
             ("8B", "Instruct"): (5_027_784_800, 8_709_519_456), ("8B", "Thinking"): (5_027_784_704, 8_709_519_360),
             ("32B", "Instruct"): (19_762_150_432, 34_817_720_352), ("32B", "Thinking"): (19_762_150_336, 34_817_720_256),
             ("30B-A3B", "Instruct"): (18_556_687_168, 32_483_932_992), ("30B-A3B", "Thinking"): (18_556_687_200, 32_483_933_024)}
for (size, variant), (q4, q8) in QVL_SIZES.items():
    repo = f"Qwen/Qwen3-VL-{size}-{variant}-GGUF"
    stem = f"Qwen3VL-{size}-{variant}"
    vid = f"qwen3-vl-{size.lower()}-{variant.lower()}"
    quants = [exact("Q4_K_M", q4, hfres(repo, stem + "-Q4_K_M.gguf")),
              exact("Q8_0", q8, hfres(repo, stem + "-Q8_0.gguf"))]
    srcs = [HF + f"Qwen/Qwen3-VL-{size}-{variant}/blob/main/config.json", HF + repo + "/tree/main", LB_FORK]
    if size == "30B-A3B":
        M.append(dense(vid, f"Qwen3-VL {size} {variant}", "qwen3vlmoe", srcs + [SLIME["qwen3-vl-30b-a3b"]],
            262144, 151936, 2048, 48, 0, 32, 4, 128, 30_532_122_624, quants,
            moe={"n_expert": 128, "n_expert_used": 8, "n_ff_exp": 768}, active=3_300_000_000))
    else:
        embd, layers, ff, nh, nkv, tied, params, recipe = QVL[size]
        M.append(dense(vid, f"Qwen3-VL {size} {variant}", "qwen3vl", srcs + [SLIME[recipe]],
            262144, 151936, embd, layers, ff, nh, nkv, 128, params, quants, tied=tied))

# --- Llama 4 Scout (llama4) ---------------------------------------------------------------
# meta-llama/Llama-4-Scout-17B-16E-Instruct text_config as public test fixtures copy it: 48
# layers, hidden 5120, 40 heads, 8 KV heads of 128, 16 routed experts of intermediate_size 8192
# (1 per token) plus the shared expert of the same width, every layer MoE
# (interleave_moe_layer_step 1), attention_chunk_size 8192 with no_rope_layers [1,1,1,0] x 12,
# vocab 202048, max_position_embeddings 10485760. llama.cpp (models/llama4.cpp) caches the
# chunked layers like a sliding window of 8192 on 3 of every 4 layers (set_swa_pattern(4)):
# sliding_window 8192, period 4, full at the end. Parameters: 109B (Unsloth's guide); sizes:
# the Dynamic quants' "Disk Size" column of that guide (three significant digits, +-50 MB).
# Maverick (128 experts on every other layer, interleave_moe_layer_step 2) cannot be written in
# this schema, whose MoE covers every layer past dense_lead.
L4_GUIDE = "https://docs.unsloth.ai/basics/tutorial-how-to-run-and-fine-tune-llama-4"
M.append(dense("llama-4-scout-17b-16e-instruct", "Llama 4 Scout 17B-16E Instruct (109B)", "llama4",
    [HF + "meta-llama/Llama-4-Scout-17B-16E-Instruct/blob/main/config.json", L4_GUIDE,
     HF + "unsloth/Llama-4-Scout-17B-16E-Instruct-GGUF"],
    10485760, 202048, 5120, 48, 0, 40, 8, 128, 109_000_000_000,
    [hf(qn, gb, L4_GUIDE + "#" + qn) for qn, gb in
     [("UD-Q2_K_XL", "42.2 GB"), ("UD-Q3_K_XL", "52.9 GB"), ("UD-Q4_K_XL", "65.6 GB")]],
    default_quant="UD-Q4_K_XL",
    attention={"sliding_window": 8192, "swa": {"period": 4, "full_at": "end"}},
    moe={"n_expert": 16, "n_expert_used": 1, "n_expert_shared": 1, "n_ff_exp": 8192, "n_ff_shexp": 8192},
    active=17_000_000_000))

# --- Phi-4-mini (Phi3ForCausalLM -> phi3) ---------------------------------------------------
# ApX's model page: 32 layers, hidden 3072, 24 heads / 8 KV of 128, FFN 8192, vocab 200064, 128K
# context; shared input/output embeddings and 3.8B parameters (PromptLayer's model page).
# Sizes: the HRX2 llama.cpp basket (bartowski files, exact).
BPHI = "bartowski/microsoft_Phi-4-mini-instruct-GGUF"
M.append(dense("phi-4-mini-instruct", "Phi-4-mini Instruct (3.8B)", "phi3",
    [HF + "microsoft/Phi-4-mini-instruct/blob/main/config.json", "https://apxml.com/models/phi-4-mini",
     "https://www.promptlayer.com/models/phi-4-mini-instruct"],
    131072, 200064, 3072, 32, 8192, 24, 8, 128, 3_800_000_000,
    [exact("Q4_K_M", 2_491_874_688, hfres(BPHI, "microsoft_Phi-4-mini-instruct-Q4_K_M.gguf")),
     exact("Q8_0", 4_084_611_456, hfres(BPHI, "microsoft_Phi-4-mini-instruct-Q8_0.gguf"))],
    tied=True))

# --- Gemma 2 2B (gemma2) ------------------------------------------------------------------
# MaxText's Hugging Face config for gemma-2-2b: 26 layers, 8 heads / 4 KV heads, hidden 2304,
# FFN 9216 (Gemma2Config's defaults: head_dim 256, vocab 256000, window 4096 on every other
# layer, 8192 context); 2 614 341 888 parameters (public model inventories of google/gemma-2-2b,
# which these shapes give exactly). Size: an app catalog's entry for bartowski's Q4_K_M
# ("1_710_000_000", i.e. the listing's 1.71 GB: +-5 MB).
M.append(dense("gemma-2-2b-it", "Gemma 2 2B IT", "gemma2",
    [HF + "google/gemma-2-2b-it/blob/main/config.json",
     "https://github.com/AI-Hypercomputer/maxtext/blob/main/MaxText/utils/ckpt_conversion/utils/hf_model_configs.py"],
    8192, 256000, 2304, 26, 9216, 8, 4, 256, 2_614_341_888,
    [hf("Q4_K_M", "1.71 GB", hfres("bartowski/gemma-2-2b-it-GGUF", "gemma-2-2b-it-Q4_K_M.gguf"))],
    tied=True, attention=GEMMA2_SWA))

# --- LFM2 (lfm2: short convolutions + attention) ------------------------------------------
# LiquidAI/LFM2-1.2B config.json (as a public test fixture copies it, "fetched 2026-08-19"): 16
# layers, attention on full_attn_idxs [2, 5, 8, 10, 12, 14] (the GGUF's per-layer head_count_kv
# [0,0,8,0,0,8,0,0,8,0,8,0,8,0,8,0]), hidden 2048, 32 heads / 8 KV heads of 64, conv_L_cache 3,
# vocab 65536 (the LFM2 family's, as LFM2 configs copy it). The other 10 layers are gated short
# convolutions, llama.cpp's recurrent layers here: n_embd_r = n_embd x (L_cache - 1) = 4096, no
# SSM state (llama_hparams::n_embd_r with n_shortconv_l_cache). Mixer: in_proj 2048 x 3 x 2048 +
# out_proj 2048 x 2048 + conv 2048 x 3 = 16 783 360. FFN width 8192: the width for which these
# shapes give the GGUF's measured 1 170 340 608 tensors (to 0.006 %; the config's auto-adjusted
# block_ff_dim). Size, context (the GGUF's context_length 32768) and parameter count: a public
# fixture "built from REAL GGUF headers" read remotely from Hugging Face on 2026-08-29.
LFM2_ATTN = [2, 5, 8, 10, 12, 14]
M.append(dense("lfm2-1.2b", "LFM2 1.2B", "lfm2",
    [HF + "LiquidAI/LFM2-1.2B/blob/main/config.json", HF + "unsloth/LFM2-1.2B-GGUF"],
    32768, 65536, 2048, 16, 8192, 32, [8 if i in LFM2_ATTN else 0 for i in range(16)], 64,
    1_170_340_608,
    [exact("Q4_K_M", 730_893_024, hfres("unsloth/LFM2-1.2B-GGUF", "LFM2-1.2B-Q4_K_M.gguf"))],
    tied=True,
    recurrent={"layers": [i for i in range(16) if i not in LFM2_ATTN], "n_embd_r": 4096,
               "n_embd_s": 0, "mixer_params": 16_783_360}))

# --- Granite 4.0 H Small (granitehybrid: Mamba-2 + attention, MoE on every layer) -----------
# ibm-granite/granite-4.0-h-small config.json as a public write-up quotes it ("fetched live"):
# hidden 4096, 40 layers (36 Mamba-2, 4 attention), 32 heads / 8 KV heads, 72 experts of 768
# (top 10) and a shared expert of 1536 on every layer, mamba_d_state 128, mamba_d_conv 4,
# mamba_expand 2 (d_inner 8192), tied embeddings, vocab 100352. The GGUF header (the fixture
# above): attention on blocks 5, 15, 25, 35 with 8 KV heads of 128, context 1048576, 32 207 337 984
# tensors. Mamba-2 groups and heads: n_groups 1 and 128 heads of 64 -- the values a public vLLM
# sizing test gives a Granite-4-H shape, and the only ones for which the shapes add up to the
# header's total (to 0.001 %; 8 groups would be +0.8 %). State per llama_hparams:
#   n_embd_r = 3 x (8192 + 2 x 1 x 128) = 25344;  n_embd_s = 128 x 8192 = 1048576.
# Mixer: in_proj 4096 x (2 x 8192 + 2 x 128 + 128) + out_proj 8192 x 4096 + conv and the small
# per-head vectors = 102 286 976.
GH_ATTN = [5, 15, 25, 35]
M.append(dense("granite-4.0-h-small", "Granite 4.0 H Small (32B-A9B)", "granitehybrid",
    [HF + "ibm-granite/granite-4.0-h-small/blob/main/config.json",
     HF + "unsloth/granite-4.0-h-small-GGUF"],
    1048576, 100352, 4096, 40, 0, [32 if i in GH_ATTN else 0 for i in range(40)],
    [8 if i in GH_ATTN else 0 for i in range(40)], 128, 32_207_337_984,
    [exact("UD-Q4_K_XL", 18_756_426_656, hfres("unsloth/granite-4.0-h-small-GGUF", "granite-4.0-h-small-UD-Q4_K_XL.gguf"))],
    tied=True,
    recurrent={"layers": [i for i in range(40) if i not in GH_ATTN], "n_embd_r": 25344,
               "n_embd_s": 1048576, "mixer_params": 102_286_976},
    moe={"n_expert": 72, "n_expert_used": 10, "n_expert_shared": 1, "n_ff_exp": 768, "n_ff_shexp": 1536}))

# --- Qwen2.5-VL 7B (Qwen2_5_VLForConditionalGeneration -> qwen2vl) ------------------------
# The language model has Qwen2.5-7B's shapes (28 layers, 3584, FFN 18944, 28 heads / 4 KV of 128,
# vocab 152064, untied): the pinned GGUF's tensor total, 7 615 616 512 (the same app catalog as
# Qwen3 0.6B/1.7B above, which also gives "FP16 KV: 2 * 2 * 28 layers * 4 KV heads * 128 dim"),
# is exactly what those shapes give. Context: that GGUF's 128000. The f16 projector of the same
# pinned revision: 1 354 162 912 bytes.
BQVL = "bartowski/Qwen_Qwen2.5-VL-7B-Instruct-GGUF"; RQVL = "956c2bbb32ce10ac80761c127daa18f77063fab1"
M.append(dense("qwen2.5-vl-7b-instruct", "Qwen2.5-VL 7B Instruct", "qwen2vl",
    [HF + "Qwen/Qwen2.5-VL-7B-Instruct/blob/main/config.json", HF + BQVL + "/tree/" + RQVL,
     HF + "Qwen/Qwen2.5-7B-Instruct/blob/main/config.json"],
    128000, 152064, 3584, 28, 18944, 28, 4, 128, 7_615_616_512,
    [exact(qn, b, hfres(BQVL, "Qwen_Qwen2.5-VL-7B-Instruct-" + qn + ".gguf", RQVL)) for qn, b in
     [("Q4_K_M", 4_683_072_320), ("Q5_K_M", 5_444_830_016), ("Q6_K", 6_254_197_568)]],
    mmproj=mmproj_exact(1_354_162_912, hfres(BQVL, "mmproj-Qwen_Qwen2.5-VL-7B-Instruct-f16.gguf", RQVL),
                        "mmproj-Qwen_Qwen2.5-VL-7B-Instruct-f16.gguf")))

# --- SmolLM3 3B (smollm3: llama with NoPE on every 4th layer) ------------------------------
# HuggingFaceTB/SmolLM3-3B config.json as public notes quote it: 36 layers, hidden 2048, FFN
# 11008, 16 heads / 4 KV heads of 128, vocab 128256, tied embeddings, no_rope_layer_interval 4,
# max_position_embeddings 65536; 3 075 098 624 parameters (the safetensors index, as several
# notes state it -- what these shapes give). Size: a public test note's "1,915,305,312 bytes"
# for ggml-org's Q4_K_M. NoPE layers cache K and V like the others.
M.append(dense("smollm3-3b", "SmolLM3 3B", "smollm3",
    [HF + "HuggingFaceTB/SmolLM3-3B/blob/main/config.json", HF + "ggml-org/SmolLM3-3B-GGUF"],
    65536, 128256, 2048, 36, 11008, 16, 4, 128, 3_075_098_624,
    [exact("Q4_K_M", 1_915_305_312, HF + "ggml-org/SmolLM3-3B-GGUF/tree/main (its Q4_K_M file)")],
    tied=True))

# --- Qwen3-235B-A22B-Instruct-2507 (qwen3moe): Qwen3-235B-A22B's shapes, 262144 context ------
# Size: bartowski's four Q4_K_M parts as a public downloader's test spells them out
# (39 856 336 448 + 2 x 39 847 230 560 + 23 096 107 744); context: an app catalog's entry.
B235 = "bartowski/Qwen_Qwen3-235B-A22B-Instruct-2507-GGUF"
M.append(dense("qwen3-235b-a22b-instruct-2507", "Qwen3 235B-A22B Instruct 2507", "qwen3moe",
    [HF + "Qwen/Qwen3-235B-A22B-Instruct-2507/blob/main/config.json", SLIME["qwen3-235B-A22B"],
     HF + B235 + "/tree/main/Qwen_Qwen3-235B-A22B-Instruct-2507-Q4_K_M"],
    262144, 151936, 4096, 94, 0, 64, 4, 128, 235_000_000_000,
    [exact("Q4_K_M", 39_856_336_448 + 2 * 39_847_230_560 + 23_096_107_744,
           HF + B235 + "/tree/main/Qwen_Qwen3-235B-A22B-Instruct-2507-Q4_K_M (4 parts)")],
    moe={"n_expert": 128, "n_expert_used": 8, "n_ff_exp": 1536}, active=22_000_000_000))

# LFM2-350M: the LFM2 text backbone of public LFM2-VL config copies (hidden 1024, 16 layers, 16
# heads / 8 KV of 64, attention on the same six layers, vocab 65536, block_ff_dim 6656 which the
# config's auto-adjustment makes 4608), 354 483 968 parameters with tied embeddings and a SwiGLU
# width of 4608 (public notes that reproduce the released count exactly). Size: GOLIB (below).
GOLIB = "public Go model library listing Hugging Face sizes ('Sizes are the Hub's')"
M.append(dense("lfm2-350m", "LFM2 350M", "lfm2",
    [HF + "LiquidAI/LFM2-350M/blob/main/config.json", HF + "LiquidAI/LFM2-350M-GGUF"],
    32768, 65536, 1024, 16, 4608, 16, [8 if i in LFM2_ATTN else 0 for i in range(16)], 64,
    354_483_968,
    [exact("Q4_K_M", 229_309_376, hfres("LiquidAI/LFM2-350M-GGUF", "LFM2-350M-Q4_K_M.gguf"))],
    tied=True,
    recurrent={"layers": [i for i in range(16) if i not in LFM2_ATTN], "n_embd_r": 2048,
               "n_embd_s": 0, "mixer_params": 1024 * 3 * 1024 + 1024 * 1024 + 1024 * 3}))
# LFM2-8B-A1B (lfm2moe): a public copy of its config.json -- 24 layers with attention on
# [2, 6, 10, 14, 18, 21], hidden 2048, 32 heads / 8 KV of 64, conv_L_cache 3, vocab 65536, the
# first 2 layers dense (intermediate_size 7168, num_dense_layers 2), the other 22 with 32
# experts of 1792 (top 4); 8.3B total and 1.5B active parameters and a 32K context (its model
# card as public notes quote it). Size: GOLIB (LiquidAI's Q4_K_M).
LFM8_ATTN = [2, 6, 10, 14, 18, 21]
M.append(dense("lfm2-8b-a1b", "LFM2 8B-A1B", "lfm2moe",
    [HF + "LiquidAI/LFM2-8B-A1B/blob/main/config.json", HF + "LiquidAI/LFM2-8B-A1B-GGUF"],
    32768, 65536, 2048, 24, 7168, 32, [8 if i in LFM8_ATTN else 0 for i in range(24)], 64,
    8_300_000_000,
    [exact("Q4_K_M", 5_044_779_712, hfres("LiquidAI/LFM2-8B-A1B-GGUF", "LFM2-8B-A1B-Q4_K_M.gguf"))],
    tied=True,
    recurrent={"layers": [i for i in range(24) if i not in LFM8_ATTN], "n_embd_r": 4096,
               "n_embd_s": 0, "mixer_params": 2048 * 3 * 2048 + 2048 * 2048 + 2048 * 3},
    moe={"n_expert": 32, "n_expert_used": 4, "n_ff_exp": 1792, "dense_lead": 2},
    active=1_500_000_000))

# --- ERNIE 4.5 21B-A3B (ernie4_5-moe) ------------------------------------------------------
# baidu/ERNIE-4.5-21B-A3B-PT config.json as public configs copy it: 28 layers, hidden 2560, dense
# FFN 12288 on layer 0 (moe_layer_start_index 1), 20 heads / 4 KV heads of 128, 64 experts of
# 1536 (moe_k 6) and 2 shared experts of 1536, vocab 103424, tied embeddings,
# max_position_embeddings 131072; "21.8B in all". Size: GOLIB and an API-verified table (unsloth).
M.append(dense("ernie-4.5-21b-a3b", "ERNIE 4.5 21B-A3B", "ernie4_5-moe",
    [HF + "baidu/ERNIE-4.5-21B-A3B-PT/blob/main/config.json", HF + "unsloth/ERNIE-4.5-21B-A3B-PT-GGUF"],
    131072, 103424, 2560, 28, 12288, 20, 4, 128, 21_800_000_000,
    [exact("Q4_K_M", 13_331_015_456, hfres("unsloth/ERNIE-4.5-21B-A3B-PT-GGUF", "ERNIE-4.5-21B-A3B-PT-Q4_K_M.gguf"))],
    tied=True,
    moe={"n_expert": 64, "n_expert_used": 6, "n_expert_shared": 2, "n_ff_exp": 1536,
         "n_ff_shexp": 1536, "dense_lead": 1},
    active=3_000_000_000))

# --- Command R7B (cohere2: three sliding-window layers of 4096, then one global) -----------
# CohereLabs/c4ai-command-r7b-12-2024 config.json as a KV-cache data file curated from it
# (retrieved 2026-05-23): 32 layers, 32 heads / 8 KV heads of 128, sliding_window 4096 with
# sliding_window_pattern 4 (24 sliding, 8 full), max_position_embeddings 132096. The module
# dump on a public 4-bit card of it: embeddings 256000 x 4096, k/v 1024 wide, FFN 14336; the
# output head is the embedding (Cohere2 ties them). The card says "7 billion"; the shapes give
# 8.03B, the count the Hub's safetensors metadata gives for Aya Expanse 8B (8 028 033 024),
# which has the same dimensions (its bartowski Q4_K_M is 27 KB smaller than this one). Size:
# bartowski's Q4_K_M as a desktop catalog records the Hub's bytes.
M.append(dense("command-r7b-12-2024", "Command R7B 12-2024", "cohere2",
    [HF + "CohereLabs/c4ai-command-r7b-12-2024/blob/main/config.json",
     HF + "bartowski/c4ai-command-r7b-12-2024-GGUF"],
    132096, 256000, 4096, 32, 14336, 32, 8, 128, 8_028_033_024,
    [exact("Q4_K_M", 5_057_009_792, hfres("bartowski/c4ai-command-r7b-12-2024-GGUF",
                                           "c4ai-command-r7b-12-2024-Q4_K_M.gguf"))],
    tied=True, attention={"sliding_window": 4096, "swa": {"period": 4, "full_at": "end"}}))

# --- Seed-OSS 36B (seed_oss: llama-like, qkv bias) -----------------------------------------
# ByteDance-Seed/Seed-OSS-36B-Instruct config.json as a public test copies it: hidden 5120, 64
# layers, FFN 27648, 80 heads / 8 KV heads of 128, vocab 155136, untied, max_position_embeddings
# 524288 (the card's "512K"). "36B" on the card. Size: bartowski's Q4_K_M, Hub bytes as a
# desktop catalog records them.
M.append(dense("seed-oss-36b-instruct", "Seed-OSS 36B Instruct", "seed_oss",
    [HF + "ByteDance-Seed/Seed-OSS-36B-Instruct/blob/main/config.json",
     HF + "bartowski/ByteDance-Seed_Seed-OSS-36B-Instruct-GGUF"],
    524288, 155136, 5120, 64, 27648, 80, 8, 128, 36_000_000_000,
    [exact("Q4_K_M", 21_762_149_024, hfres("bartowski/ByteDance-Seed_Seed-OSS-36B-Instruct-GGUF",
                                            "ByteDance-Seed_Seed-OSS-36B-Instruct-Q4_K_M.gguf"))]))

# --- OLMoE 1B-7B (olmoe: 64 experts, 8 per token, every layer) ------------------------------
# allenai/OLMoE-1B-7B-0924 config.json, the fields a public adapter test copies: hidden 2048,
# expert FFN 1024, 16 layers, 64 experts / 8 used, 16 heads and 16 KV heads, vocab 50304,
# untied. Context: 4096, as llama.cpp's load log of the GGUF prints (olmoe.context_length).
# Card: "1B active and 7B total parameters". Size: AllenAI's own Q4_K_M.
M.append(dense("olmoe-1b-7b-0924-instruct", "OLMoE 1B-7B 0924 Instruct", "olmoe",
    [HF + "allenai/OLMoE-1B-7B-0924-Instruct/blob/main/config.json",
     HF + "allenai/OLMoE-1B-7B-0924-Instruct-GGUF"],
    4096, 50304, 2048, 16, 0, 16, 16, 128, 7_000_000_000,
    [exact("Q4_K_M", 4_213_512_672, hfres("allenai/OLMoE-1B-7B-0924-Instruct-GGUF",
                                           "olmoe-1b-7b-0924-instruct-q4_k_m.gguf"))],
    moe={"n_expert": 64, "n_expert_used": 8, "n_ff_exp": 1024}))

# --- EXAONE 4.0 1.2B (exaone4; llama.cpp gives only the 64-layer 32B sliding windows) -------
# LGAI-EXAONE/EXAONE-4.0-1.2B config.json as a public parser test copies it: hidden 2048, FFN
# 4096, 30 layers, 32 heads / 8 KV heads (head 64), vocab 102400, max_position_embeddings
# 65536. The GGUF card: "Number of Parameters (without embeddings): 1.07B ... Vocab Size:
# 102,400, Context Length: 65,536 tokens"; params.total is that plus one 102400 x 2048 table:
# the output head is tied (untied, the official Q4_K_M below would be 4.4 bits per weight, below
# what Q4_K_M with a Q6_K head gives). llama.cpp's exaone4 sets sliding windows only for
# n_layer == 64, so every layer here is global.
M.append(dense("exaone-4.0-1.2b", "EXAONE 4.0 1.2B", "exaone4",
    [HF + "LGAI-EXAONE/EXAONE-4.0-1.2B/blob/main/config.json", HF + "LGAI-EXAONE/EXAONE-4.0-1.2B-GGUF"],
    65536, 102400, 2048, 30, 4096, 32, 8, 64, 1_070_000_000 + 102400 * 2048,
    [exact("Q4_K_M", 812_437_792, hfres("LGAI-EXAONE/EXAONE-4.0-1.2B-GGUF", "EXAONE-4.0-1.2B-Q4_K_M.gguf"))],
    tied=True))

# --- DeepSeek-Coder-V2-Lite Instruct (deepseek2, the V2-Lite shape) ------------------------
# deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct is the DeepSeek-V2-Lite architecture (a desktop
# catalog lists both as deepseek2 "16B-A2.4B"); bartowski's Q4_K_M is 32 bytes larger than
# mradermacher's DeepSeek-V2-Lite Q4_K_M (10 364 416 736), i.e. the same tensors, so the shapes,
# context and counts are V2-Lite Chat's above. Size: that catalog's Hub bytes.
M.append(dense("deepseek-coder-v2-lite-instruct", "DeepSeek-Coder-V2-Lite Instruct", "deepseek2",
    [HF + "deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct/blob/main/config.json",
     HF + "bartowski/DeepSeek-Coder-V2-Lite-Instruct-GGUF"],
    163840, 102400, 2048, 27, 10944, 16, 16, 192, 15_700_000_000,
    [exact("Q4_K_M", 10_364_416_768, hfres("bartowski/DeepSeek-Coder-V2-Lite-Instruct-GGUF",
                                            "DeepSeek-Coder-V2-Lite-Instruct-Q4_K_M.gguf"))],
    attention={"head_dim_v": 128, "kv_lora_rank": 512, "rope_dim": 64},
    moe={"n_expert": 64, "n_expert_used": 6, "n_expert_shared": 2, "n_ff_exp": 1408,
         "n_ff_shexp": 1408, "dense_lead": 1},
    active=2_400_000_000))

# --- Granite 3.3 2B Instruct (granite) ------------------------------------------------------
# ibm-granite/granite-3.3-2b-instruct: 40 layers, hidden 2048, FFN 8192, 32 heads / 8 KV heads
# of 64, vocab 49159, tied embeddings; these shapes add up to the Hub's safetensors total
# 2 533 539 840 exactly (norms included; a public license audit lists it, HF API 2026-09-25).
# Context 131072: a curated llama.cpp catalog's "nativeContext" and a profiler's "Context length
# reported 131072" for this GGUF. Size: IBM's Q4_K_M at a pinned revision (1 545 303 328 B, the
# same in three catalogs).
M.append(dense("granite-3.3-2b-instruct", "Granite 3.3 2B Instruct", "granite",
    [HF + "ibm-granite/granite-3.3-2b-instruct/blob/main/config.json",
     HF + "ibm-granite/granite-3.3-2b-instruct-GGUF/tree/7cdf86ccd1f1bb3491c9b7017b033f2e51367397"],
    131072, 49159, 2048, 40, 8192, 32, 8, 64, 2_533_539_840,
    [exact("Q4_K_M", 1_545_303_328, hfres("ibm-granite/granite-3.3-2b-instruct-GGUF",
           "granite-3.3-2b-instruct-Q4_K_M.gguf", "7cdf86ccd1f1bb3491c9b7017b033f2e51367397"))],
    tied=True))

# --- SmolLM2 (llama) ------------------------------------------------------------------------
# HuggingFaceTB/SmolLM2-1.7B-Instruct: 24 layers, hidden 2048, FFN 8192, 32 heads and 32 KV
# heads of 64, vocab 49152, tied (a public training check asserts lm_head shares
# embed_tokens' storage); Hub total 1 711 376 384, which these shapes give exactly; trained
# context 8192 (an Ollama table's n_ctx, llama.cpp's n_ctx_train). SmolLM2-360M-Instruct: 32
# layers, hidden 960, FFN 2560, 15 heads / 5 KV heads of 64, same vocabulary, tied; Hub total
# 361 821 120 (exactly these shapes), n_ctx_train 8192 and n_embd 960 as llama-server reports
# them. Sizes: bartowski's files as two app catalogs record the Hub's bytes.
M.append(dense("smollm2-1.7b-instruct", "SmolLM2 1.7B Instruct", "llama",
    [HF + "HuggingFaceTB/SmolLM2-1.7B-Instruct/blob/main/config.json",
     HF + "bartowski/SmolLM2-1.7B-Instruct-GGUF"],
    8192, 49152, 2048, 24, 8192, 32, 32, 64, 1_711_376_384,
    [exact("Q4_K_M", 1_055_609_824, hfres("bartowski/SmolLM2-1.7B-Instruct-GGUF", "SmolLM2-1.7B-Instruct-Q4_K_M.gguf")),
     exact("Q8_0", 1_820_414_944, hfres("bartowski/SmolLM2-1.7B-Instruct-GGUF", "SmolLM2-1.7B-Instruct-Q8_0.gguf"))],
    tied=True))
M.append(dense("smollm2-360m-instruct", "SmolLM2 360M Instruct", "llama",
    [HF + "HuggingFaceTB/SmolLM2-360M-Instruct/blob/main/config.json",
     HF + "bartowski/SmolLM2-360M-Instruct-GGUF"],
    8192, 49152, 960, 32, 2560, 15, 5, 64, 361_821_120,
    [exact("Q8_0", 386_405_280, hfres("bartowski/SmolLM2-360M-Instruct-GGUF", "SmolLM2-360M-Instruct-Q8_0.gguf"))],
    tied=True))

# --- Gemma 3 270M, 1B, and the QAT Q4_0 builds (gemma3) -------------------------------------
# google/gemma-3-270m-it: 18 layers (Keras preset: "18-layer ... 170m embedding, 100m
# transformer"), hidden 640 and vocab 262144 and n_ctx_train 32768 as llama-server reports them,
# FFN 2048, 4 heads / 1 KV head of 256, tied; these shapes give the reported 268 098 176
# parameters exactly. Sliding window 512 on 5 of 6 layers like Gemma 3 1B above. Sizes:
# ggml-org's Q8_0 (291 545 600 B, a license audit's LFS listing; its sha256 is the one a Nix
# fetch of ggml-org/gemma-3-270m-it-GGUF pins) and ggml-org's QAT Q4_0 (LlamaBarn's catalog,
# which also gives 268 098 176 parameters and 32768 tokens).
G270 = dict(tied=True, attention={"sliding_window": 512, "swa": {"period": 6, "full_at": "end"}})
M.append(dense("gemma-3-270m-it", "Gemma 3 270M IT", "gemma3",
    [HF + "google/gemma-3-270m-it/blob/main/config.json", HF + "ggml-org/gemma-3-270m-it-GGUF"],
    32768, 262144, 640, 18, 2048, 4, 1, 256, 268_098_176,
    [exact("Q8_0", 291_545_600, hfres("ggml-org/gemma-3-270m-it-GGUF", "gemma-3-270m-it-Q8_0.gguf"))], **G270))
M.append(dense("gemma-3-270m-it-qat", "Gemma 3 270M IT (QAT)", "gemma3",
    [HF + "google/gemma-3-270m-it/blob/main/config.json",
     HF + "ggml-org/gemma-3-270m-it-qat-GGUF", LB_FORK],
    32768, 262144, 640, 18, 2048, 4, 1, 256, 268_098_176,
    [exact("Q4_0", 241_410_624, hfres("ggml-org/gemma-3-270m-it-qat-GGUF", "gemma-3-270m-it-qat-Q4_0.gguf"))], **G270))
# gemma-3-1b-it: the shapes of the QAT entry above; the Hub's total 999 885 952 (LlamaBarn, the
# license audit). bartowski's Q4_K_M: a desktop catalog's Hub bytes.
M.append(dense("gemma-3-1b-it", "Gemma 3 1B IT", "gemma3",
    [HF + "google/gemma-3-1b-it/blob/main/config.json", HF + "bartowski/google_gemma-3-1b-it-GGUF"],
    32768, 262144, 1152, 26, 6912, 4, 1, 256, 999_885_952,
    [exact("Q4_K_M", 806_058_496, hfres("bartowski/google_gemma-3-1b-it-GGUF", "google_gemma-3-1b-it-Q4_K_M.gguf"))],
    tied=True, attention={"sliding_window": 512, "swa": {"period": 6, "full_at": "end"}}))
# Quantization-aware 4B/12B/27B: the shapes of the entries above; ggml-org's Q4_0 files and the
# parameter totals as LlamaBarn lists them (27 432 406 640, 12 187 325 040, 4 300 079 472: the
# Hub's counts with the vision tower, which the shapes here leave out, hence text-only counts
# below from the non-QAT entries).
for gid, gname, embd, layers, ff, heads, kv, hd, params, nbytes in [
        ("4b", "4B", 2560, 34, 10240, 8, 4, 256, 3_880_000_000, 2_526_080_992),
        ("12b", "12B", 3840, 48, 15360, 16, 8, 256, 12_000_000_000, 7_131_017_792),
        ("27b", "27B", 5376, 62, 21504, 32, 16, 128, 27_400_000_000, 15_908_791_488)]:
    M.append(dense(f"gemma-3-{gid}-it-qat", f"Gemma 3 {gname} IT (QAT)", "gemma3",
        [HF + f"google/gemma-3-{gid}-it/blob/main/config.json",
         HF + f"ggml-org/gemma-3-{gid}-it-qat-GGUF", LB_FORK],
        131072, 262144, embd, layers, ff, heads, kv, hd, params,
        [exact("Q4_0", nbytes, hfres(f"ggml-org/gemma-3-{gid}-it-qat-GGUF", f"gemma-3-{gid}-it-qat-Q4_0.gguf"))],
        tied=True, attention=GEMMA3_SWA))

# --- ERNIE 4.5 0.3B (ernie4_5, dense) -------------------------------------------------------
# baidu/ERNIE-4.5-0.3B-PT config.json (a public copy): hidden 1024, FFN 3072, 18 layers, 16 heads
# / 2 KV heads of 128, vocab 103424, max_position_embeddings 131072, tied embeddings. A public
# survey of small models gives "360.7M, 29.4 %" embeddings (one 103424 x 1024 table is 29.4 % of
# 360.7M, so the head is tied). Size: unsloth's Q4_K_M, a desktop catalog's Hub bytes.
M.append(dense("ernie-4.5-0.3b", "ERNIE 4.5 0.3B", "ernie4_5",
    [HF + "baidu/ERNIE-4.5-0.3B-PT/blob/main/config.json", HF + "unsloth/ERNIE-4.5-0.3B-PT-GGUF"],
    131072, 103424, 1024, 18, 3072, 16, 2, 128, 360_700_000,
    [exact("Q4_K_M", 240_645_600, hfres("unsloth/ERNIE-4.5-0.3B-PT-GGUF", "ERNIE-4.5-0.3B-PT-Q4_K_M.gguf"))],
    tied=True))

# --- Hunyuan 0.5B Instruct (hunyuan-dense) --------------------------------------------------
# tencent/Hunyuan-0.5B-Instruct, as a survey that read its config.json and GGUF header lists it:
# "24 L, all full-attn, 8 kv x 128, tied emb", context 262,144; another gives "539.0M, 23.0 %"
# embeddings, i.e. a 124M table: hidden 1024 x vocab 120818. With 16 query heads of 128 and an
# FFN of 3584 the shapes add up to 539.0M (checked below). Size: bartowski's Q4_K_M as a desktop
# catalog records the Hub's bytes.
M.append(dense("hunyuan-0.5b-instruct", "Hunyuan 0.5B Instruct", "hunyuan-dense",
    [HF + "tencent/Hunyuan-0.5B-Instruct/blob/main/config.json",
     HF + "bartowski/tencent_Hunyuan-0.5B-Instruct-GGUF"],
    262144, 120818, 1024, 24, 3584, 16, 8, 128, 539_000_000,
    [exact("Q4_K_M", 354_970_464, hfres("bartowski/tencent_Hunyuan-0.5B-Instruct-GGUF",
                                         "tencent_Hunyuan-0.5B-Instruct-Q4_K_M.gguf"))],
    tied=True))

# --- Kimi-VL A3B Thinking 2506 (deepseek2: Moonlight's MLA + MoE text model) ---------------
# moonshotai/Kimi-VL-A3B-Thinking-2506: its language model is Moonlight-16B-A3B (a GGUF survey:
# "27 L all MLA (576/tok), 64 exp top-6, moe_int 1408", context 131,072). Moonlight's shapes from
# a public Megatron recipe for it (THUDM/slime scripts/models/moonlight.sh): hidden 2048, dense
# FFN 11264 on layer 0, 16 heads, kv_lora_rank 512, no q_lora, qk 128 + rope 64, v 128, 64
# experts of 1408 (6 used) and 2 shared, vocab 163840, untied. Parameters: the text model's
# 15.96B (a model comparison's "Moonlight-16B-A3B-Instruct 15.96B/3B"); the card's 16.4B counts
# the MoonViT tower, which is the projector file here. Sizes: ggml-org's Q4_K_M and Q8_0
# projector, a desktop catalog's Hub bytes.
KVL = "ggml-org/Kimi-VL-A3B-Thinking-2506-GGUF"
M.append(dense("kimi-vl-a3b-thinking-2506", "Kimi-VL A3B Thinking 2506", "deepseek2",
    [HF + "moonshotai/Kimi-VL-A3B-Thinking-2506/blob/main/config.json", HF + KVL, SLIME["moonlight"]],
    131072, 163840, 2048, 27, 11264, 16, 16, 192, 15_960_000_000,
    [exact("Q4_K_M", 10_540_747_680, hfres(KVL, "Kimi-VL-A3B-Thinking-2506-Q4_K_M.gguf"))],
    attention={"head_dim_v": 128, "kv_lora_rank": 512, "rope_dim": 64},
    moe={"n_expert": 64, "n_expert_used": 6, "n_expert_shared": 2, "n_ff_exp": 1408,
         "n_ff_shexp": 1408, "dense_lead": 1},
    mmproj=mmproj_exact(618_098_624, hfres(KVL, "mmproj-Kimi-VL-A3B-Thinking-2506-Q8_0.gguf"),
                        "mmproj-Kimi-VL-A3B-Thinking-2506-Q8_0.gguf"),
    active=3_000_000_000))

# --- Gemma 3n E2B / E4B (gemma3n: AltUp, LAuReL, per-layer embeddings, shared KV) ----------
# google/gemma-3n-E{2,4}B-it text configs as ai-edge-torch's builder copies them: hidden 2048,
# 8 heads / 2 KV heads of 256, every 5th layer global and the rest sliding over 512, FFN 8192
# (E2B, 30 layers, num_kv_shared_layers 10) or 16384 (E4B, 35 layers, 15 shared),
# hidden_size_per_layer_input 256 over vocab_size_per_layer_input 262144, laurel_rank 64,
# altup_num_inputs 4, max_seq_len 32768. The GGUF vocabulary is the full 262400
# (conversion/gemma.py), the head tied; llama.cpp's gemma3n sets n_layer_kv_from_start = 20
# for both (layers from 20 on reuse earlier KV) and set_swa_pattern(5). Totals and sizes:
# LlamaBarn's catalog (5 439 438 272 and 7 849 978 192, the Hub's counts, which include the
# audio and vision encoders that the GGUF leaves out; ggml-org Q8_0, unsloth Q4_K_M).
G3N = {"sliding_window": 512, "swa": {"period": 5, "full_at": "end"}, "n_layer_kv_from_start": 20}
for nid, layers, ff, params, q8, q4 in [("e2b", 30, 8192, 5_439_438_272, 4_788_112_064, 3_026_881_888),
                                        ("e4b", 35, 16384, 7_849_978_192, 7_353_292_256, 4_539_054_208)]:
    NU = nid.upper()
    M.append(dense(f"gemma-3n-{nid}-it", f"Gemma 3n {NU} IT", "gemma3n",
        [HF + f"google/gemma-3n-{NU}-it/blob/main/config.json", HF + f"ggml-org/gemma-3n-{NU}-it-GGUF",
         HF + f"unsloth/gemma-3n-{NU}-it-GGUF", LB_FORK],
        32768, 262400, 2048, layers, ff, 8, 2, 256, params,
        [exact("Q4_K_M", q4, hfres(f"unsloth/gemma-3n-{NU}-it-GGUF", f"gemma-3n-{NU}-it-Q4_K_M.gguf")),
         exact("Q8_0", q8, hfres(f"ggml-org/gemma-3n-{NU}-it-GGUF", f"gemma-3n-{NU}-it-Q8_0.gguf"))],
        tied=True, attention=G3N))
    PARAM_SKIP[f"gemma-3n-{nid}-it"] = ("the Hub total counts the audio and vision encoders the GGUF "
                                        "leaves out, and AltUp/LAuReL/per-layer embeddings are outside "
                                        "the formula; the bits-per-weight check is skipped with it")

# --- Qwen3.8 27B (qwen35) ----------------------------------------------------------------
# Qwen/Qwen3.8-27B: the Hub's safetensors total is Qwen3.6-27B's to the parameter (27 781 427 952
# each, vision tower included; a license audit's HF API listing), i.e. the same shapes as the
# Qwen3.6 27B entry above; a GGUF-header fixture of unsloth's UD-Q4_K_M reads qwen35, context
# 262144, 24/4 heads of 256, embd 5120, 16 full-attention blocks. Sizes: that fixture and a
# catalog read from the HF API on 2026-10-04 (UD-Q4_K_M 16 464 440 224; UD-IQ4_XS 14 252 845 984;
# mmproj-F16 927 607 488).
M.append(qwen35("qwen3.8-27b", "Qwen3.8 27B", "qwen35", "unsloth/Qwen3.8-27B-GGUF",
    [HF + "Qwen/Qwen3.8-27B/blob/main/config.json", SLIME["qwen3.5-27B"]],
    5120, 64, 24, 4, 48, 16, 26_895_998_464,
    [exact("UD-Q4_K_M", 16_464_440_224, us("Qwen3.8-27B-GGUF", "Qwen3.8-27B-UD-Q4_K_M.gguf")),
     exact("UD-IQ4_XS", 14_252_845_984, us("Qwen3.8-27B-GGUF", "Qwen3.8-27B-UD-IQ4_XS.gguf"))],
    ff=17408))
M[-1]["mmproj"] = mmproj_exact(927_607_488, us("Qwen3.8-27B-GGUF", "mmproj-F16.gguf"), "mmproj-F16.gguf")
M[-1]["default_quant"] = "UD-Q4_K_M"

# --- GLM-4.6V Flash (glm4 text model + vision projector) ------------------------------------
# zai-org/GLM-4.6V-Flash: the GLM-4-0414 9B block (THUDM/slime glm4-9B.sh: 40 layers, hidden
# 4096, FFN 13696, 32 heads / 2 KV groups of 128, qkv bias, vocab 151552, untied); a GGUF survey
# that read its config: "40 L, 2 kv x 128, untied", 131,072 ("128k in training"); llama-server's
# /models for its text GGUF: n-params 9 400 279 040, n-ctx-train 131072, n-embd 4096, n-vocab
# 151552. Sizes: ggml-org's Q4_K_M and Q8_0 projector (a desktop catalog's Hub bytes), unsloth's
# Q8_0 as the survey read it from the Hub tree ("9.313" GiB).
G46V = "ggml-org/GLM-4.6V-Flash-GGUF"
M.append(dense("glm-4.6v-flash", "GLM-4.6V Flash", "glm4",
    [HF + "zai-org/GLM-4.6V-Flash/blob/main/config.json", HF + G46V, HF + "unsloth/GLM-4.6V-Flash-GGUF",
     SLIME["glm4-9B"]],
    131072, 151552, 4096, 40, 13696, 32, 2, 128, 9_400_279_040,
    [exact("Q4_K_M", 6_166_577_888, hfres(G46V, "GLM-4.6V-Flash-Q4_K_M.gguf")),
     gib("Q8_0", "9.313 GiB", hfres("unsloth/GLM-4.6V-Flash-GGUF", "GLM-4.6V-Flash-Q8_0.gguf"))],
    mmproj=mmproj_exact(980_055_680, hfres(G46V, "mmproj-GLM-4.6V-Flash-Q8_0.gguf"),
                        "mmproj-GLM-4.6V-Flash-Q8_0.gguf")))

# --- Hunyuan 1.8B Instruct (hunyuan-dense) --------------------------------------------------
# tencent/Hunyuan-1.8B-Instruct as the GGUF survey above read its config: "32 L full-attn, 4 kv x
# 128, tied", context 262,144, "1.79B"; hidden 2048, 16 query heads of 128, FFN 6144 and the
# 0.5B's vocabulary 120818 add up to 1.79B. Size: bartowski's Q8_0, "1.777" GiB in that survey's
# Hub tree read.
M.append(dense("hunyuan-1.8b-instruct", "Hunyuan 1.8B Instruct", "hunyuan-dense",
    [HF + "tencent/Hunyuan-1.8B-Instruct/blob/main/config.json",
     HF + "bartowski/tencent_Hunyuan-1.8B-Instruct-GGUF"],
    262144, 120818, 2048, 32, 6144, 16, 4, 128, 1_790_000_000,
    [gib("Q8_0", "1.777 GiB", hfres("bartowski/tencent_Hunyuan-1.8B-Instruct-GGUF",
                                     "tencent_Hunyuan-1.8B-Instruct-Q8_0.gguf"))],
    tied=True))

# --- Qwen3-235B-A22B Thinking 2507 (qwen3moe) and the Instruct's Q8_0 ----------------------
# The 2507 Thinking release keeps the Instruct's shapes and 262144 context (LlamaBarn's catalog
# lists both at 262144 with the same file sizes to 32 bytes). Sizes: LlamaBarn's catalog
# history, unsloth's split files summed (Q4_K_M 3 parts, Q8_0 6 parts).
U235T = "unsloth/Qwen3-235B-A22B-Thinking-2507-GGUF"
M.append(dense("qwen3-235b-a22b-thinking-2507", "Qwen3 235B-A22B Thinking 2507", "qwen3moe",
    [HF + "Qwen/Qwen3-235B-A22B-Thinking-2507/blob/main/config.json", SLIME["qwen3-235B-A22B"],
     HF + U235T, LB_FORK],
    262144, 151936, 4096, 94, 0, 64, 4, 128, 235_000_000_000,
    [exact("Q4_K_M", 142_154_074_880, HF + U235T + "/tree/main/Q4_K_M (3 parts)"),
     exact("Q8_0", 249_940_106_368, HF + U235T + "/tree/main/Q8_0 (6 parts)")],
    moe={"n_expert": 128, "n_expert_used": 8, "n_ff_exp": 1536}, active=22_000_000_000))
for e in M:
    if e["id"] == "qwen3-235b-a22b-instruct-2507":
        e["sources"].append(LB_FORK)
        e["quants"].append(exact("Q8_0", 249_940_106_336,
            HF + "unsloth/Qwen3-235B-A22B-Instruct-2507-GGUF/tree/main/Q8_0 (6 parts)"))

# --- Devstral Small 2507 and Devstral Small 2 (the Mistral Small 24B text model) ------------
# Devstral Small 1.1 (mistralai/Devstral-Small-2507): the Mistral Small 3.1 text decoder above
# without the vision encoder; Mistral's own GGUF is a llama file, "24B", 131072 context (an app
# catalog's contextLength; LM Studio's card for the 2505 release: "a context length of 131072
# tokens"). Devstral Small 2 (2512) is mistral3 with a vision projector, context 262144
# (LlamaBarn; "a 256k context window"); its unsloth Q4_K_M is 0.5 MB (tokenizer) larger than the
# Mistral Small 3.2 one, i.e. the same tensors, and LlamaBarn's KV figure (167 772 160 B per 1k
# tokens = 40 layers x 8 KV heads x 128 x K+V x f16) agrees. Sizes: Mistral's Q4_K_M as an
# app's curated catalog read it from the Hub; LlamaBarn (unsloth Q4_K_M, ggml-org Q8_0).
M.append(dense("devstral-small-2507", "Devstral Small 2507", "llama",
    [HF + "mistralai/Devstral-Small-2507/blob/main/config.json", HF + "mistralai/Devstral-Small-2507_gguf"] + MS3_SRC,
    131072, 131072, 5120, 40, 32768, 32, 8, 128, 24_000_000_000,
    [exact("Q4_K_M", 14_333_915_904, hfres("mistralai/Devstral-Small-2507_gguf", "Devstral-Small-2507-Q4_K_M.gguf"))]))
M.append(dense("devstral-small-2-24b-instruct-2512", "Devstral Small 2 24B Instruct 2512", "mistral3",
    [HF + "mistralai/Devstral-Small-2-24B-Instruct-2512/blob/main/config.json",
     HF + "ggml-org/Devstral-Small-2-24B-Instruct-2512-GGUF", LB_FORK] + MS3_SRC,
    262144, 131072, 5120, 40, 32768, 32, 8, 128, 24_000_000_000,
    [exact("Q4_K_M", 14_334_446_752, hfres("unsloth/Devstral-Small-2-24B-Instruct-2512-GGUF",
                                            "Devstral-Small-2-24B-Instruct-2512-Q4_K_M.gguf")),
     exact("Q8_0", 25_055_308_352, hfres("ggml-org/Devstral-Small-2-24B-Instruct-2512-GGUF",
                                         "Devstral-Small-2-24B-Instruct-2512-Q8_0.gguf"))]))

# --- MiniMax-M2 (minimax-m2: 256 experts, 8 per token, every layer) -------------------------
# MiniMaxAI/MiniMax-M2: THUDM/slime's recipe for the family (scripts/models/minimax-m2.sh,
# "MiniMax-M2.5 (229B, 62 layers, 256 experts, top-8)": hidden 3072, 48 heads / 8 KV groups of
# 128, expert FFN 1536, vocab 200064, untied); a KV-cache data file curated from the M2, M2.1,
# M2.5 and M2.7 config.json files gives the same attention fields for all four and
# max_position_embeddings 196608 (M2.7: 204800). The Hub's safetensors total for M2.7,
# 228 689 764 864, is what these shapes give (a license audit's HF API listing). The MTP modules
# are not in the GGUF (809 tensors = 62 x 13 + 3). Size: unsloth's Q4_K_M at a pinned revision,
# the three shards' lengths as a public header test pins them.
UMM = "unsloth/MiniMax-M2-GGUF"; RMM = "06e952eab9e8e136847e9df067a0032582696778"
M.append(dense("minimax-m2", "MiniMax-M2", "minimax-m2",
    [HF + "MiniMaxAI/MiniMax-M2/blob/main/config.json", SLIME["minimax-m2"], HF + UMM + "/tree/" + RMM],
    196608, 200064, 3072, 62, 0, 48, 8, 128, 228_689_764_864,
    [exact("Q4_K_M", 49_386_415_584 + 49_712_985_440 + 39_242_984_096,
           HF + UMM + "/tree/" + RMM + "/Q4_K_M (3 parts)")],
    moe={"n_expert": 256, "n_expert_used": 8, "n_ff_exp": 1536}))

# --- DeepSeek-R1-0528 (deepseek2: the DeepSeek-V3 architecture) ----------------------------
# deepseek-ai/DeepSeek-R1-0528 is DeepSeek-V3's architecture (a KV-cache data file curated from
# both config.json files: the same MLA fields, 61 layers, max_position_embeddings 163840); the
# shapes are the DeepSeek-V3 entry's above ("671B MoE, 37B active"). Size: unsloth's nine
# Q4_K_M parts as a public setup note copies the Hub listing (48.4 + 49.5 + 49.6 + 48.3 + 49.5 +
# 48.3 + 49.5 + 47.0 + 14.8 GB: three significant digits each).
UR1 = "unsloth/DeepSeek-R1-0528-GGUF"
M.append(dense("deepseek-r1-0528", "DeepSeek-R1 0528", "deepseek2",
    [HF + "deepseek-ai/DeepSeek-R1-0528/blob/main/config.json", HF + UR1 + "/tree/main/Q4_K_M"],
    163840, 129280, 7168, 61, 18432, 128, 128, 192, 671_000_000_000,
    [hf_parts("Q4_K_M", ["48.4 GB", "49.5 GB", "49.6 GB", "48.3 GB", "49.5 GB", "48.3 GB", "49.5 GB",
                         "47.0 GB", "14.8 GB"], HF + UR1 + "/tree/main/Q4_K_M")],
    attention={"head_dim_v": 128, "kv_lora_rank": 512, "rope_dim": 64, "q_lora_rank": 1536},
    moe={"n_expert": 256, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 2048,
         "n_ff_shexp": 2048, "dense_lead": 3},
    active=37_000_000_000))

# --- DeepSeek-V3.1 (deepseek2: DeepSeek-V3's architecture) ---------------------------------
# deepseek-ai/DeepSeek-V3.1 keeps the V3 architecture: a GGUF index read of unsloth's Q4_K_M
# (moefit's plan) shows 58 expert layers (7 + 51) and the 576-wide MLA cache of the V3 entry,
# and the model 405.4 GB; shapes and context are the V3 entry's. Size: that read, rounded to
# 0.1 GB.
UV31 = "unsloth/DeepSeek-V3.1-GGUF"
M.append(dense("deepseek-v3.1", "DeepSeek-V3.1", "deepseek2",
    [HF + "deepseek-ai/DeepSeek-V3.1/blob/main/config.json", HF + UV31 + "/tree/main/Q4_K_M"],
    163840, 129280, 7168, 61, 18432, 128, 128, 192, 671_000_000_000,
    [hf("Q4_K_M", "405.4 GB", HF + UV31 + "/tree/main/Q4_K_M")],
    attention={"head_dim_v": 128, "kv_lora_rank": 512, "rope_dim": 64, "q_lora_rank": 1536},
    moe={"n_expert": 256, "n_expert_used": 8, "n_expert_shared": 1, "n_ff_exp": 2048,
         "n_ff_shexp": 2048, "dense_lead": 3},
    active=37_000_000_000))

# --- Qwen2.5-Coder 1.5B Instruct (qwen2): the Qwen2.5 1.5B shapes ---------------------------
# Same configuration as Qwen2.5-1.5B-Instruct above (28 layers, 1536, FFN 8960, 12 / 2 heads,
# tied, 32768); the Hub total of that shape is 1 543 714 304 (a license audit's listing for
# Qwen2.5-1.5B-Instruct). Size: Qwen's own Q4_K_M (a curated llama.cpp catalog's Hub bytes;
# 32 bytes more than the general model's).
M.append(dense("qwen2.5-coder-1.5b-instruct", "Qwen2.5 Coder 1.5B Instruct", "qwen2",
    [HF + "Qwen/Qwen2.5-Coder-1.5B-Instruct/blob/main/config.json", HF + "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"],
    32768, 151936, 1536, 28, 8960, 12, 2, 128, 1_543_714_304,
    [exact("Q4_K_M", 1_117_320_768, hfres("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
                                           "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"))],
    tied=True))

# --- Ministral 3 8B (mistral3) --------------------------------------------------------------
# NVIDIA Megatron-Bridge's Ministral 3 page: 34 layers, hidden 4096, 32 heads / 8 KV (8.4B);
# vocab 131072 and context 262144 like the 3B/14B (LlamaBarn). The FFN width is not on those
# pages: 14336 is what makes the Hub's total 8 918 026 716 (a license audit's HF API listing)
# come out as 8.49B of untied text decoder plus the ~0.43B vision tower and projector the 3B
# carries (its Hub total 3 849 090 048 against a 3.4B decoder). Sizes: LlamaBarn (mistralai
# Q4_K_M, ggml-org Q8_0).
for variant, q4, q8 in [("Instruct", 5_198_911_904, 9_703_104_512), ("Reasoning", 5_198_910_368, 9_701_376_000)]:
    base = f"Ministral-3-8B-{variant}-2512"
    M.append(dense(base.lower(), f"Ministral 3 8B {variant} 2512", "mistral3",
        [HF + f"mistralai/{base}/blob/main/config.json"] + MIN3,
        262144, 131072, 4096, 34, 14336, 32, 8, 128, 8_400_000_000,
        [exact("Q4_K_M", q4, hfres(f"mistralai/{base}-GGUF", f"{base}-Q4_K_M.gguf")),
         exact("Q8_0", q8, hfres(f"ggml-org/{base}-GGUF", f"{base}-Q8_0.gguf"))]))

# --- DeepSeek-R1-Distill-Llama-8B (llama: Llama 3.1 8B's shapes) ---------------------------
# deepseek-ai/DeepSeek-R1-Distill-Llama-8B is distilled into Llama-3.1-8B (the shapes of the
# Llama 3.1 8B entry above); a model table lists 8 030 261 248 parameters (the Hub count of
# Llama-3.1-8B-Instruct too) and 131,072 tokens, as does an app's max_context_length. Size:
# unsloth's Q4_K_M, "4.92 GB" in a public test write-up (two decimals, +-5 MB).
M.append(dense("deepseek-r1-distill-llama-8b", "DeepSeek-R1-Distill-Llama-8B", "llama",
    [HF + "deepseek-ai/DeepSeek-R1-Distill-Llama-8B/blob/main/config.json",
     HF + "unsloth/DeepSeek-R1-Distill-Llama-8B-GGUF"],
    131072, 128256, 4096, 32, 14336, 32, 8, 128, 8_030_261_248,
    [card("Q4_K_M", 4.92, hfres("unsloth/DeepSeek-R1-Distill-Llama-8B-GGUF", "DeepSeek-R1-Distill-Llama-8B-Q4_K_M.gguf"))]))

# --- Qwen2-VL 2B Instruct (qwen2vl) ---------------------------------------------------------
# Qwen/Qwen2-VL-2B-Instruct: its language model is the Qwen2.5-1.5B-Instruct shape (a public
# evaluation suite's backbone table: qwen2-vl-2b -> qwen2.5-1.5b-instruct, whose Hub count it
# gives as 1 543 714 304; the VL repo's 2 208 985 600 adds the vision tower): 28 layers, 1536,
# FFN 8960, 12 / 2 heads, tied, 32768 context. Sizes: ggml-org's Q4_K_M and Q8_0 projector, a
# desktop catalog's Hub bytes.
GQ2VL = "ggml-org/Qwen2-VL-2B-Instruct-GGUF"
M.append(dense("qwen2-vl-2b-instruct", "Qwen2-VL 2B Instruct", "qwen2vl",
    [HF + "Qwen/Qwen2-VL-2B-Instruct/blob/main/config.json", HF + GQ2VL],
    32768, 151936, 1536, 28, 8960, 12, 2, 128, 1_543_714_304,
    [exact("Q4_K_M", 986_046_944, hfres(GQ2VL, "Qwen2-VL-2B-Instruct-Q4_K_M.gguf"))],
    tied=True,
    mmproj=mmproj_exact(709_883_360, hfres(GQ2VL, "mmproj-Qwen2-VL-2B-Instruct-Q8_0.gguf"),
                        "mmproj-Qwen2-VL-2B-Instruct-Q8_0.gguf")))

# --- Qwen3-Coder-480B-A35B Instruct (qwen3moe) ----------------------------------------------
# Qwen/Qwen3-Coder-480B-A35B-Instruct config.json (a public copy of the file, and a model
# registry that transcribes it): hidden 6144, 62 layers, 96 heads / 8 KV heads of 128, 160
# experts of 2560 (8 used), no shared expert, vocab 151936, untied, max_position_embeddings
# 262144. Size: unsloth's six Q4_K_M shards as a validation note lists their observed bytes
# (49 973 553 312 + 49 768 927 168 + 48 862 488 352 + 48 952 192 064 + 49 721 298 176 +
# 42 780 367 136; a launcher catalog names the repo and calls it 290 GB).
UQC = "unsloth/Qwen3-Coder-480B-A35B-Instruct-GGUF"
M.append(dense("qwen3-coder-480b-a35b-instruct", "Qwen3-Coder 480B-A35B Instruct", "qwen3moe",
    [HF + "Qwen/Qwen3-Coder-480B-A35B-Instruct/blob/main/config.json", HF + UQC + "/tree/main/Q4_K_M"],
    262144, 151936, 6144, 62, 0, 96, 8, 128, 480_000_000_000,
    [exact("Q4_K_M", 49_973_553_312 + 49_768_927_168 + 48_862_488_352 + 48_952_192_064 +
           49_721_298_176 + 42_780_367_136, HF + UQC + "/tree/main/Q4_K_M (6 parts)")],
    moe={"n_expert": 160, "n_expert_used": 8, "n_ff_exp": 2560}, active=35_000_000_000))

# --- YaRN past the trained context -------------------------------------------------------
# Only where the model card documents it: Qwen3 ("natively 32,768 tokens ... up to 131,072 tokens
# with YaRN", rope_scaling factor 4.0, original_max_position_embeddings 32768) and Qwen2.5 7B and
# larger, Instruct and Coder ("Context Length: Full 131,072 tokens", the same YaRN block). Their
# GGUF files carry no rope.scaling keys, so llama.cpp needs the flags.
YARN_CARDS = {
    "qwen3-4b": "Qwen/Qwen3-4B", "qwen3-8b": "Qwen/Qwen3-8B", "qwen3-14b": "Qwen/Qwen3-14B",
    "qwen3-32b": "Qwen/Qwen3-32B", "qwen3-30b-a3b": "Qwen/Qwen3-30B-A3B",
    "qwen3-235b-a22b": "Qwen/Qwen3-235B-A22B",
    "qwen2.5-7b-instruct": "Qwen/Qwen2.5-7B-Instruct",
    "qwen2.5-14b-instruct": "Qwen/Qwen2.5-14B-Instruct",
    "qwen2.5-32b-instruct": "Qwen/Qwen2.5-32B-Instruct",
    "qwen2.5-72b-instruct": "Qwen/Qwen2.5-72B-Instruct",
    "qwen2.5-coder-7b-instruct": "Qwen/Qwen2.5-Coder-7B-Instruct",
    "qwen2.5-coder-32b-instruct": "Qwen/Qwen2.5-Coder-32B-Instruct",
}
for e in M:
    if e["id"] in YARN_CARDS:
        e["yarn"] = {"factor": 4, "original_context": 32768,
                     "source": HF + YARN_CARDS[e["id"]] + "#processing-long-texts"}
assert all(any(e["id"] == k for e in M) for k in YARN_CARDS), "a YaRN id is not in the catalog"


# --- Self-check: the shapes must add up to the card's parameter count -------------------
# Every entry's weights are re-counted from its shapes the way catalogParamSplit() splits them
# (core/arch/shape_from_catalog.cpp): token embeddings, the output head unless tied, attention
# (Q, K, V, O with GQA; MLA's q/kv low-rank projections), the dense FFN (gate+up+down or
# up+down), routed experts, shared experts and the router, and the cited mixer size of each
# recurrent layer. Norms, biases, convolution taps and RoPE tables are left out: they are well
# under 0.1 % of any model here. MTP (nextn) blocks are not counted: model cards give the trunk
# (GLM-4.5-Air "106B"; its single MTP block, a whole MoE layer, adds another 3 %).
#
# PARAM_TOLERANCE is 2 %: model cards round their totals to three significant figures
# ("8.03B", "14.8B": at most 0.6 %), and vision towers the card may include are ~0.4B on a 12B
# model (Gemma 3 12B: -1.96 %). A wrong width, head count,
# layer count or expert count moves the total by far more than 2 %, which is what this catches.
# Architectures with weights the formula cannot see get a per-entry term in PARAM_EXTRA (count
# and why); entries it cannot check at all are in PARAM_SKIP with the reason.
PARAM_TOLERANCE = 0.02


def per_layer(v, n):
    return v if isinstance(v, list) else [v] * n


def pattern_layer(pat, il, n_trunk):
    """LayerPattern::matches (core/catalog.cpp) for the catalog's pattern forms."""
    if not pat or il >= n_trunk:
        return False
    if pat.get("all"):
        return True
    if "layers" in pat:
        return il in pat["layers"]
    period = pat["period"]
    if pat.get("full_at", "end") == "start":
        return il % period != 0
    return (il + 1) % period != 0


def param_count(e):
    n, d = e["n_layer"], e["n_embd"]
    a = e["attention"]
    nh, nkv, ff = per_layer(a["n_head"], n), per_layer(a["n_head_kv"], n), per_layer(e["n_ff"], n)
    hk, hv = a["head_dim_k"], a["head_dim_v"]
    total = e["n_vocab"] * d * (1 if e.get("tied_embeddings") else 2)
    moe, rec = e.get("moe"), e.get("recurrent")
    mats = 3 if e.get("ffn_gated", True) else 2
    n_trunk = n - e.get("nextn_layers", 0)
    swa = a.get("swa")
    for il in range(n_trunk):
        if pattern_layer(rec, il, n_trunk):
            total += rec.get("mixer_params", 0)
        elif "kv_lora_rank" in a:
            r, rope, ql = a["kv_lora_rank"], a["rope_dim"], a.get("q_lora_rank")
            total += d * ql + ql * nh[il] * hk if ql else d * nh[il] * hk
            total += d * (r + rope) + r * nh[il] * (hk - rope + hv) + nh[il] * hv * d
        elif nh[il] > 0:
            sl = pattern_layer(swa, il, n_trunk)
            k = a.get("swa_head_dim_k", hk) if sl else hk
            v = a.get("swa_head_dim_v", hv) if sl else hv
            kv = a.get("swa_n_head_kv", nkv[il]) if sl else nkv[il]
            total += d * nh[il] * k + d * kv * (k + v) + nh[il] * v * d
        if moe and il >= moe.get("dense_lead", 0):
            total += moe["n_expert"] * mats * d * moe["n_ff_exp"] + d * moe["n_expert"]
            total += moe.get("n_expert_shared", 0) * mats * d * moe.get("n_ff_shexp", moe["n_ff_exp"])
        else:
            total += mats * d * ff[il]
    return total + PARAM_EXTRA.get(e["id"], (0, ""))[0]


# Bits per weight a quant's whole file may show (file bytes x 8 / params.total). Wide on
# purpose: small models carry their embeddings at Q6_K/Q8_0 (Qwen3-0.6B Q4_K_M is 6.5), MoE
# quants keep attention and shared experts at Q8_0; this only catches a size filed under the
# wrong quant or the wrong model (a Q8_0 size on a Q4_K_M row is 1.7x off). The 4-bit floors
# are 4.2 because gpt-oss keeps its MXFP4 experts in every quant (120B Q4_K_M: 4.29). Models
# under 1B parameters are not checked: their embedding rows, kept at Q8_0 or F16, are a third
# or more of the file (Qwen2.5-0.5B's official Q4_K_M is 8.0 bits per weight).
BPW_BOUNDS = {
    "Q2_K": (2.5, 4.5), "Q3_K_S": (3.0, 5.0), "Q3_K_M": (3.2, 5.3), "Q3_K_L": (3.5, 5.6),
    "IQ3_M": (3.2, 5.0), "IQ4_XS": (4.0, 6.0), "Q4_0": (4.2, 6.5), "Q4_K_S": (4.3, 6.5),
    "Q4_K_M": (4.2, 7.0), "Q4_K": (4.2, 7.0), "UD-Q4_K_XL": (4.2, 7.0), "UD-Q4_K_M": (4.2, 7.0),
    "Q5_K_S": (5.3, 7.5), "Q5_K_M": (5.4, 7.8), "Q6_K": (6.4, 8.3), "Q8_0": (8.0, 9.5),
    "MXFP4": (4.2, 6.0), "MXFP4_MOE": (4.2, 6.0), "BF16": (15.8, 16.6), "F16": (15.8, 16.6),
}


def self_check(models):
    bad = []
    for e in models:
        total = e["params"]["total"]
        if e["id"] not in PARAM_SKIP:
            got = param_count(e)
            if abs(got - total) > PARAM_TOLERANCE * total:
                bad.append(f"{e['id']}: shapes count {got:,} parameters, the card says {total:,} "
                           f"({100 * (got - total) / total:+.2f} %, tolerance {PARAM_TOLERANCE:.0%})")
        for qn in e["quants"]:
            lo_hi = BPW_BOUNDS.get(qn["name"])
            if lo_hi and total >= 1_000_000_000 and e["id"] not in PARAM_SKIP:
                bpw = qn["file_bytes"] * 8 / total
                if not lo_hi[0] <= bpw <= lo_hi[1]:
                    bad.append(f"{e['id']}:{qn['name']}: {bpw:.2f} bits per weight, outside "
                               f"{lo_hi[0]}..{lo_hi[1]} for this quant")
    ids = [e["id"] for e in models]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        bad.append("duplicate ids: " + ", ".join(sorted(dup)))
    for k in list(PARAM_EXTRA) + list(PARAM_SKIP):
        if k not in ids:
            bad.append(f"{k}: in PARAM_EXTRA/PARAM_SKIP but not in the catalog")
    if bad:
        sys.stderr.write("catalog_gen.py self-check failed:\n  " + "\n  ".join(bad) + "\n")
        sys.exit(1)


# ==== catb: Granite 4.0 (H Tiny, H Micro, Micro), Granite 3.3 8B, Qwen2.5-VL 3B, R1-Distill-Qwen 1.5B ====

# --- Granite 4.0 H Tiny (granitehybrid: Mamba-2 + attention, MoE on every layer) ------------
# Shapes: the model card's architecture table (a public copy of the card: DocDBrown/IBMGranite4Tiny
# README) -- embedding 1536, 4 attention / 36 Mamba2 layers, attention heads 12 of 128, 4 KV heads,
# Mamba2 state 128 and 48 heads, 64 experts of 512 (6 active) and a shared expert of 1024, shared
# input/output embeddings, 7B total / 1B active. Attention on blocks 5, 15, 25, 35: the layer_types
# of a public importer test's copy of the config (5 mamba, attention, 9 mamba, ... , 4 mamba; also
# mamba_n_groups 1, mamba_d_head 64, mamba_expand 2, mamba_d_conv 4, vocab 100352, tied). GGUF header
# (Ollama's granite4:tiny-h Q4_K_M metadata page): block_count 40, context_length 1048576,
# ssm.inner_size 3072, ssm.group_count 1, ssm.state_size 128, ssm.conv_kernel 4, time_step_rank 48,
# expert_count 64 / used 6, feed_forward_length 512, expert_shared_feed_forward_length 1024.
# State per llama_hparams (as for H Small above):
#   n_embd_r = 3 x (3072 + 2 x 1 x 128) = 9984;  n_embd_s = 128 x 3072 = 393216.
# Mixer: in_proj 1536 x (2 x 3072 + 2 x 128 + 48) = 9 904 128 + out_proj 3072 x 1536 = 4 718 592
# + conv (3072 + 256) x 4 = 13 312 + conv bias 3328 + A/D/dt_bias 3 x 48 + norm 3072 = 14 642 576.
# Total: whatmodel.sh's "6.94B params (1B active)" (the card's "7B" rounded to three figures; the
# shapes give 6.939B). Size: IBM's Q4_K_M, 4 230 976 352 B (sha256 5a38b08c...) as two public
# pinned downloads record it (an app catalog naming ibm-granite/granite-4.0-h-tiny-GGUF, and a
# baseline script pinning the same sha256 and size).
G4_CARD = "https://github.com/DocDBrown/IBMGranite4Tiny/blob/60d949f9a1b5df8e0fb09bf970d15a8188fb963d/README.md"
G4_ATTN = [5, 15, 25, 35]
M.append(dense("granite-4.0-h-tiny", "Granite 4.0 H Tiny (7B-A1B)", "granitehybrid",
    [HF + "ibm-granite/granite-4.0-h-tiny/blob/main/config.json", G4_CARD,
     "https://ollama.com/library/granite4:tiny-h/blobs/9811e90b0eec",
     "https://raw.githubusercontent.com/jakemanger/whatmodel/main/pages/model/granite-4-0-h-tiny.md",
     HF + "ibm-granite/granite-4.0-h-tiny-GGUF"],
    1048576, 100352, 1536, 40, 0, [12 if i in G4_ATTN else 0 for i in range(40)],
    [4 if i in G4_ATTN else 0 for i in range(40)], 128, 6_940_000_000,
    [exact("Q4_K_M", 4_230_976_352, hfres("ibm-granite/granite-4.0-h-tiny-GGUF", "granite-4.0-h-tiny-Q4_K_M.gguf"))],
    tied=True,
    recurrent={"layers": [i for i in range(40) if i not in G4_ATTN], "n_embd_r": 9984,
               "n_embd_s": 393216, "mixer_params": 14_642_576},
    moe={"n_expert": 64, "n_expert_used": 6, "n_expert_shared": 1, "n_ff_exp": 512, "n_ff_shexp": 1024},
    active=1_000_000_000))

# --- Granite 4.0 H Micro (granitehybrid, dense FFN on every layer) ---------------------------
# Shapes: the same card table -- embedding 2048, 4 attention / 36 Mamba2 layers, 32 heads of 64,
# 8 KV heads, Mamba2 state 128 and 64 heads, MLP 8192, shared input/output embeddings; the config
# as a public fine-tune copies it (anuj6316/granite: hidden 2048, intermediate 8192, attention on
# layer_types 5/15/25/35, mamba_d_head 64, mamba_n_heads 64, mamba_n_groups 1, mamba_expand 2,
# mamba_d_conv 4, 32 / 8 heads, 40 layers). Context: 1048576, the declared context length a public
# pinned-download test gives IBM's pinned Q3_K_M of this repo (the same context_length the Tiny and
# Small headers carry). State: n_embd_r = 3 x (4096 + 2 x 128) = 13056, n_embd_s = 128 x 4096 =
# 524288. Mixer: 2048 x (2 x 4096 + 2 x 128 + 64) = 17 432 576 + 4096 x 2048 = 8 388 608 + conv
# 17 408 + conv bias 4352 + 3 x 64 + norm 4096 = 25 847 232. Total: whatmodel.sh's "3.19B params"
# (the card's "3B"; the shapes give 3.191B, and a public Ollama-metadata fixture of a granitehybrid
# Q4_K_M reads general.parameter_count 3 191 396 096). Sizes: IBM's files at a pinned revision, exact
# LFS bytes as a public app's PinnedGraniteModelCatalog records them (with sha256).
GHM = "ibm-granite/granite-4.0-h-micro-GGUF"; RGHM = "51ce07a9c9cfa971ca359d9625836bf8a4a1b61f"
M.append(dense("granite-4.0-h-micro", "Granite 4.0 H Micro (3B)", "granitehybrid",
    [HF + "ibm-granite/granite-4.0-h-micro/blob/main/config.json", G4_CARD,
     HF + "anuj6316/granite/blob/main/config.json",
     "https://raw.githubusercontent.com/jakemanger/whatmodel/main/pages/model/granite-4-0-h-micro.md",
     HF + GHM + "/tree/" + RGHM],
    1048576, 100352, 2048, 40, 8192, [32 if i in G4_ATTN else 0 for i in range(40)],
    [8 if i in G4_ATTN else 0 for i in range(40)], 64, 3_190_000_000,
    [exact(qn, b, hfres(GHM, "granite-4.0-h-micro-" + qn + ".gguf", RGHM)) for qn, b in
     [("Q4_K_M", 1_942_564_512), ("Q2_K", 1_226_247_840), ("Q3_K_M", 1_555_472_032),
      ("Q5_K_M", 2_273_455_776), ("Q8_0", 3_397_676_704)]],
    tied=True,
    recurrent={"layers": [i for i in range(40) if i not in G4_ATTN], "n_embd_r": 13056,
               "n_embd_s": 524288, "mixer_params": 25_847_232}))

# --- Granite 4.0 Micro (granite: plain transformer, like Granite 3.3 2B) -----------------------
# The card table: embedding 2560, 40 attention layers, 40 heads of 64, 8 KV heads, MLP 8192, RoPE,
# shared input/output embeddings. GGUF header (Ollama's granite4:micro Q4_K_M metadata):
# architecture granite, block_count 40, context_length 131072, embedding_length 2560, head_count
# 40 / head_count_kv 8, feed_forward_length 8192, rope.dimension_count 64, vocab_size 100352.
# Total: 3 402 836 480, the Hub's safetensors total (a public license audit's HF API listing of
# ibm-granite/granite-4.0-micro, 2026-09-25) -- what these shapes give with the norms; whatmodel.sh
# and Ollama print 3.4B. Size: IBM's Q4_K_M, "2,099,502,528 bytes" (LFS oid 97c417dc...) as a public
# model-selection note records the official listing.
M.append(dense("granite-4.0-micro", "Granite 4.0 Micro (3B)", "granite",
    [HF + "ibm-granite/granite-4.0-micro/blob/main/config.json", G4_CARD,
     "https://ollama.com/library/granite4:micro/blobs/5c7ac4aead1b",
     "https://raw.githubusercontent.com/jakemanger/whatmodel/main/pages/model/granite-4-0-micro.md",
     HF + "ibm-granite/granite-4.0-micro-GGUF"],
    131072, 100352, 2560, 40, 8192, 40, 8, 64, 3_402_836_480,
    [exact("Q4_K_M", 2_099_502_528, hfres("ibm-granite/granite-4.0-micro-GGUF", "granite-4.0-micro-Q4_K_M.gguf"))],
    tied=True))

# --- Granite 3.3 8B Instruct (granite) ---------------------------------------------------------
# The Granite 3.x 8B shape (ibm-granite/granite-3.1-8b-instruct config.json: hidden 4096, 40
# layers, FFN 12800, 32 heads / 8 KV heads of 128, tied, max_position_embeddings 131072) with the
# Granite 3.3 vocabulary of 49159 (as for 3.3 2B above): these shapes give the Hub's safetensors
# total for ibm-granite/granite-3.3-8b-instruct, 8 170 864 640 (the same license audit), exactly,
# norms included -- 49155 rows would be 16 384 short. Size: IBM's Q4_K_M, 4 942 873 344 B, as a public
# app's model list records the Hub's bytes.
M.append(dense("granite-3.3-8b-instruct", "Granite 3.3 8B Instruct", "granite",
    [HF + "ibm-granite/granite-3.3-8b-instruct/blob/main/config.json",
     HF + "ibm-granite/granite-3.1-8b-instruct/blame/96fedcdf5764b7e36d2737d129bc07caff913e72/config.json",
     HF + "ibm-granite/granite-3.3-8b-instruct-GGUF"],
    131072, 49159, 4096, 40, 12800, 32, 8, 128, 8_170_864_640,
    [exact("Q4_K_M", 4_942_873_344, hfres("ibm-granite/granite-3.3-8b-instruct-GGUF", "granite-3.3-8b-instruct-Q4_K_M.gguf"))],
    tied=True))

# --- Qwen2.5-VL 3B Instruct (qwen2vl) --------------------------------------------------------
# Qwen/Qwen2.5-VL-3B-Instruct config.json as public copies carry it (_name_or_path the Qwen repo):
# hidden 2048, 36 layers, FFN 11008, 16 heads / 2 KV heads (head 128), tied embeddings,
# max_position_embeddings 128000, vocab 151936 -- the Qwen2.5-3B-Instruct language-model shape, whose
# Hub total is 3 085 938 688 (the license audit above); the VL repo's larger count adds the vision
# tower, which lives in the mmproj file. Sizes: ggml-org's files, exact bytes as a public smoke test
# pins them (with sha256) for ggml-org/Qwen2.5-VL-3B-Instruct-GGUF resolve/main.
GQVL3 = "ggml-org/Qwen2.5-VL-3B-Instruct-GGUF"
M.append(dense("qwen2.5-vl-3b-instruct", "Qwen2.5-VL 3B Instruct", "qwen2vl",
    [HF + "Qwen/Qwen2.5-VL-3B-Instruct/blob/main/config.json",
     HF + "dahwinsingularity/vllm2/blame/main/config.json",
     HF + "XinBB/SE-GUI-3B/blob/main/config.json",
     HF + "Qwen/Qwen2.5-3B-Instruct/blob/main/config.json", HF + GQVL3],
    128000, 151936, 2048, 36, 11008, 16, 2, 128, 3_085_938_688,
    [exact("Q4_K_M", 1_929_901_056, hfres(GQVL3, "Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf")),
     exact("Q8_0", 3_285_474_304, hfres(GQVL3, "Qwen2.5-VL-3B-Instruct-Q8_0.gguf"))],
    tied=True,
    mmproj=mmproj_exact(1_338_428_128, hfres(GQVL3, "mmproj-Qwen2.5-VL-3B-Instruct-f16.gguf"),
                        "mmproj-Qwen2.5-VL-3B-Instruct-f16.gguf")))

# --- DeepSeek-R1-Distill-Qwen 1.5B (qwen2) -----------------------------------------------------
# deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B config.json as public copies carry it: hidden 1536, 28
# layers, FFN 8960, 12 heads / 2 KV heads (head 128), vocab 151936, max_position_embeddings 131072,
# tie_word_embeddings false (unlike Qwen2.5-1.5B-Instruct). 1 777 088 000 parameters: a public test's
# pinned evidence for deepseek-r1-distill-qwen-1.5b (339 tensors, MIT) -- what these untied shapes
# give with biases and norms. Sizes: unsloth's file listing (three significant digits).
UR15 = HF + "unsloth/DeepSeek-R1-Distill-Qwen-1.5B-GGUF/tree/main"
M.append(dense("deepseek-r1-distill-qwen-1.5b", "DeepSeek-R1-Distill-Qwen 1.5B", "qwen2",
    [HF + "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B/blob/main/config.json",
     HF + "onnx-community/DeepSeek-R1-Distill-Qwen-1.5B-ONNX/blob/main/config.json", UR15],
    131072, 151936, 1536, 28, 8960, 12, 2, 128, 1_777_088_000,
    hf_tree(UR15, "DeepSeek-R1-Distill-Qwen-1.5B-{}.gguf",
            [("Q4_K_M", "1.12 GB"), ("Q3_K_M", "924 MB"), ("Q5_K_M", "1.29 GB"), ("Q6_K", "1.46 GB"),
             ("Q8_0", "1.89 GB")])))

# ---- catc: LFM2 700M / 2.6B, SmolLM2 135M, Llama 3.1 405B, Phi-4-mini-reasoning, Hunyuan 7B ----

# --- LFM2 700M and 2.6B (lfm2: short convolutions + attention, like lfm2-1.2b) -------------
# Parameter counts and layer mix: the LFM2 model-card table (as the onnx-community card copies
# it): LFM2-700M 742,489,344, LFM2-2.6B 2,569,272,320 ("30 (22 conv + 8 attn)"), context
# 32,768 tokens, vocabulary 65,536 for both. LFM2-700M config.json (the LiquidAI repo's
# refs/pr/8 copy): hidden 1536, 24 heads / 8 KV heads (head 1536/24 = 64), full_attn_idxs
# [2, 5, 8, 10, 12, 14], conv_L_cache 3, block_ff_dim 10240 auto-adjusted to 6912 (the width a
# public test pinned at revision 86f49fc9a3800c3a325b7320bde179c318062583 asserts). LFM2-2.6B:
# the LiquidAI LFM2-2.6B-Transcript config (same backbone) and a devkit config of LFM2-2.6B:
# hidden 2048, 30 layers, 32 heads / 8 KV heads of 64, intermediate_size 10752, attention on
# layers [2, 5, 9, 13, 17, 21, 24, 27] (the same test, revision
# 36ed799f7024ef169ba92ffe184821835e15cc66). Tied embeddings as for the LFM2 family: the shapes
# then give the card counts to 0.007 % (untied they would be +13.6 % / +5.2 %).
# Convolution layers: n_embd_r = n_embd x (L_cache - 1), no SSM state; mixer = in_proj
# n x 3n + out_proj n x n + conv n x 3. Sizes: LiquidAI's own Q4_K_M files, exact bytes as two
# public app catalogs record them (700M: 468,624,320) and a hackathon submission pinning
# LiquidAI/LFM2-2.6B-GGUF at a759abdc59 (2.6B: 1,563,668,704).
LFM2_CARD_TABLE = "https://hf.global-rail.com/onnx-community/LFM2-2.6B-Exp-ONNX"
LFM2_700M_ATTN = [2, 5, 8, 10, 12, 14]
M.append(dense("lfm2-700m", "LFM2 700M", "lfm2",
    [HF + "LiquidAI/LFM2-700M/blob/refs%2Fpr%2F8/config.json", LFM2_CARD_TABLE,
     HF + "LiquidAI/LFM2-700M-GGUF"],
    32768, 65536, 1536, 16, 6912, 24, [8 if i in LFM2_700M_ATTN else 0 for i in range(16)], 64,
    742_489_344,
    [exact("Q4_K_M", 468_624_320, hfres("LiquidAI/LFM2-700M-GGUF", "LFM2-700M-Q4_K_M.gguf"))],
    tied=True,
    recurrent={"layers": [i for i in range(16) if i not in LFM2_700M_ATTN], "n_embd_r": 3072,
               "n_embd_s": 0, "mixer_params": 1536 * 3 * 1536 + 1536 * 1536 + 1536 * 3}))
LFM2_26B_ATTN = [2, 5, 9, 13, 17, 21, 24, 27]
M.append(dense("lfm2-2.6b", "LFM2 2.6B", "lfm2",
    [HF + "LiquidAI/LFM2-2.6B/blob/main/config.json",
     HF + "LiquidAI/LFM2-2.6B-Transcript-ONNX/blob/main/config.json",
     HF + "florianvoss/LFM2-2.6B_logits/blob/main/devkit/vlm_config.json", LFM2_CARD_TABLE,
     HF + "LiquidAI/LFM2-2.6B-GGUF"],
    32768, 65536, 2048, 30, 10752, 32, [8 if i in LFM2_26B_ATTN else 0 for i in range(30)], 64,
    2_569_272_320,
    [exact("Q4_K_M", 1_563_668_704, hfres("LiquidAI/LFM2-2.6B-GGUF", "LFM2-2.6B-Q4_K_M.gguf"))],
    tied=True,
    recurrent={"layers": [i for i in range(30) if i not in LFM2_26B_ATTN], "n_embd_r": 4096,
               "n_embd_s": 0, "mixer_params": 2048 * 3 * 2048 + 2048 * 2048 + 2048 * 3}))

# --- SmolLM2 135M Instruct (llama, like smollm2-360m-instruct) ------------------------------
# SmolLM2-135M(-Instruct) config.json (as fine-tunes of HuggingFaceTB/SmolLM2-135M-Instruct copy
# it): hidden 576, 30 layers, FFN 1536, 9 heads / 3 KV heads of 64, vocab 49152, tied,
# max_position_embeddings 8192; Hub total 134,515,008 (public architecture notes quote the
# safetensors count; these shapes give it to 0.03 %, the rest is norms). Size: bartowski's Q4_K_M,
# 105,454,432 bytes (a benchmark note that downloaded it at commit 09816acd, and an app catalog).
M.append(dense("smollm2-135m-instruct", "SmolLM2 135M Instruct", "llama",
    [HF + "HuggingFaceTB/SmolLM2-135M-Instruct/blob/main/config.json",
     HF + "VIshalChak/SmolLM2-FT-DPO/blob/main/config.json",
     HF + "bartowski/SmolLM2-135M-Instruct-GGUF"],
    8192, 49152, 576, 30, 1536, 9, 3, 64, 134_515_008,
    [exact("Q4_K_M", 105_454_432, hfres("bartowski/SmolLM2-135M-Instruct-GGUF",
                                         "SmolLM2-135M-Instruct-Q4_K_M.gguf",
                                         "09816acd5d99df7be770d85ea30822623dab342c"))],
    tied=True))

# --- Llama 3.1 405B Instruct (llama) -----------------------------------------------------------
# meta-llama/Llama-3.1-405B-Instruct config.json (as public model-shape tables transcribe it):
# hidden 16384, 126 layers, FFN 53248, 128 heads / 8 KV heads of 128, vocab 128256, untied,
# 131072 context; Hub safetensors total 405,853,388,800 (which these shapes give exactly, norms
# aside). Early repacks carry 16 KV heads (410,081,247,232 parameters, e.g. the bullerwins GGUF)
# and are not this model. No Q4_K_M listing of the 8-KV release was found (bartowski's repo is
# gone); sizes are ThomasBaruzier's imatrix quants (uploaded Aug 2024, after the release), the
# Hub tree listings of every part (three significant digits each): Q3_K_M 47.7 + 47.6 + 47.6 +
# 47.3 GB + 5.15 GB (3.85 bits per weight), Q3_K_S 47.6 + 47.4 + 47.6 + 32.6 GB.
TB405 = "ThomasBaruzier/Meta-Llama-3.1-405B-Instruct-GGUF"
M.append(dense("llama-3.1-405b-instruct", "Llama 3.1 405B Instruct", "llama",
    [HF + "meta-llama/Llama-3.1-405B-Instruct/blob/main/config.json", HF + TB405],
    131072, 128256, 16384, 126, 53248, 128, 8, 128, 405_853_388_800,
    [hf_parts("Q3_K_M", ["47.7 GB", "47.6 GB", "47.6 GB", "47.3 GB", "5.15 GB"],
              HF + TB405 + "/tree/main/Meta-Llama-3.1-405B-Instruct-Q3_K_M"),
     hf_parts("Q3_K_S", ["47.6 GB", "47.4 GB", "47.6 GB", "32.6 GB"],
              HF + TB405 + "/tree/ca36d60fc04a27890bdcc2d97684e5ebae5949e3/Meta-Llama-3.1-405B-Instruct-Q3_K_S")]))

# --- Phi-4-mini-reasoning (phi3, like phi-4-mini-instruct) -----------------------------------
# microsoft/Phi-4-mini-reasoning model card (public mirrors): a Phi-4 family model of 3.8B
# parameters, 128K-token context, vocabulary 200,064 -- the Phi-4-mini shapes of the entry above
# (32 layers, hidden 3072, 24 / 8 heads of 128, FFN 8192, tied). bartowski's Q4_K_M is
# 2,491,874,848 bytes (a public trading-signals repo records the file on disk), 160 bytes more
# than bartowski's Phi-4-mini-instruct Q4_K_M (2,491,874,688): the same tensors, only the
# metadata differs.
BPHIMR = "bartowski/microsoft_Phi-4-mini-reasoning-GGUF"
M.append(dense("phi-4-mini-reasoning", "Phi-4-mini-reasoning (3.8B)", "phi3",
    [HF + "microsoft/Phi-4-mini-reasoning/blob/main/config.json",
     "https://model.drfengling.asia/microsoft/Phi-4-mini-reasoning",
     "https://model.aibase.com/en/models/details/1927649922392526848",
     "https://apxml.com/models/phi-4-mini", HF + BPHIMR],
    131072, 200064, 3072, 32, 8192, 24, 8, 128, 3_800_000_000,
    [exact("Q4_K_M", 2_491_874_848, hfres(BPHIMR, "microsoft_Phi-4-mini-reasoning-Q4_K_M.gguf"))],
    tied=True))

# --- Hunyuan 7B Instruct (hunyuan-dense, like hunyuan-1.8b-instruct) ------------------------
# tencent/Hunyuan-7B-Instruct config.json (refs/pr/10 copy; Hy-MT2-7B and the HunyuanImage
# reprompt model publish the same geometry): hidden 4096, 32 layers, FFN 14336, 32 heads / 8 KV
# heads of 128, org_vocab_size / vocab_size 128167, tie_word_embeddings true. Context: llama.cpp's
# converter writes 256 x 1024 = 262144 for hunyuan-dense (PR #14878). No card parameter count was
# found (the collection rounds to "8B"); params.total is the BF16 checkpoint's size over 2 bytes:
# the Hub tree lists 4.98 + 5 + 4.92 GB + 117 MB = 15.017 GB, i.e. 7.51B (the shapes give
# 7,504,293,888 without norms, -0.08 %). Size: bartowski's Q4_K_M, 4,621,992,960 bytes (a desktop
# catalog's ModelScope mirror of the bartowski repo, with its sha256).
BHY7 = "bartowski/tencent_Hunyuan-7B-Instruct-GGUF"
M.append(dense("hunyuan-7b-instruct", "Hunyuan 7B Instruct", "hunyuan-dense",
    [HF + "tencent/Hunyuan-7B-Instruct/blob/refs%2Fpr%2F10/config.json",
     HF + "tencent/Hunyuan-7B-Instruct/tree/01f52507589627ea5c871eaef7b3e11db8b854ac",
     "https://github.com/ggml-org/llama.cpp/pull/14878", HF + BHY7],
    262144, 128167, 4096, 32, 14336, 32, 8, 128, 7_510_000_000,
    [exact("Q4_K_M", 4_621_992_960, hfres(BHY7, "tencent_Hunyuan-7B-Instruct-Q4_K_M.gguf"))],
    tied=True))


# --- Mistral Small 3.1 24B Instruct 2503 (mistral3; the Mistral Small 3.x text model) ----------
# The text decoder is the one of the Mistral Small 3.2 entry above (MS3_SRC: the public copy of
# its Mistral3 config.json -- hidden 5120, 40 layers, 32 heads / 8 KV of 128, FFN 32768, vocab
# 131072, max_position_embeddings 131072 -- and a model page for this very 3.1 release); Mistral's
# own model page: 24B parameters (the card's total with the vision encoder; the text shapes count
# 23.57B, -1.8 %, as for the 3.2 entry), 128k context. Sizes: unsloth's file listing (three
# significant digits each).
MS31_TREE = HF + "unsloth/Mistral-Small-3.1-24B-Instruct-2503-GGUF/tree/main"
M.append(dense("mistral-small-3.1-24b-instruct-2503", "Mistral Small 3.1 24B Instruct 2503", "mistral3",
    [HF + "mistralai/Mistral-Small-3.1-24B-Instruct-2503/blob/main/config.json", MS31_TREE,
     "https://github.com/mistralai/platform-docs-public/blob/19c578bb7c67fc844df98aef18fe8f2eaa70dfed/src/schema/models/models/mistral-small-3-1-25-03.ts"]
    + MS3_SRC,
    131072, 131072, 5120, 40, 32768, 32, 8, 128, 24_000_000_000,
    hf_tree(MS31_TREE, "Mistral-Small-3.1-24B-Instruct-2503-{}.gguf",
            [("Q4_K_M", "14.3 GB"), ("Q5_K_M", "16.8 GB"), ("Q6_K", "19.3 GB"), ("Q8_0", "25.1 GB")])))

# --- GLM-4-0414 9B and 32B (glm4; natively 32K, YaRN x4 documented) -------------------------
# THUDM/GLM-4 README (the 0414 release): every GLM-4-0414 model is "natively trained with a 32K
# context" (Seq Length "32K -> 128K") and the YaRN block it gives is factor 4.0 from
# original_max_position_embeddings 32768; Xinference's glm4-0414 page: context length 32768.
# 9B: THUDM/slime glm4-9B.sh (40 layers, hidden 4096, FFN 13696, 32 heads / 2 KV groups, vocab
# 151552, untied) -- the same block GLM-4.6V-Flash's text model is, so its parameter count is
# that entry's (llama-server's n-params for the same-shaped text GGUF, 9 400 279 040). Size:
# unsloth's Q4_K_M, a desktop catalog's Hub bytes.
# 32B: hidden 6144, 61 layers, 48 heads / 2 KV heads (ApX's GLM-4 32B page); a GGUF of the 0414
# 32B block (GLM-Z1-32B-0414, built on GLM-4-32B-0414) as ik_llama.cpp PR #344 loads it:
# block_count 61, context_length 32768, embedding 6144, feed_forward 23040, 48 / 2 heads of 128
# (n_embd_k_gqa 256), n_vocab 151552, "32.57 B". Size and parameter count: lmstudio-community's
# Q4_K_M at a pinned revision as a public package catalog records it (19 680 022 112 B, 32.566B,
# context_length 32768).
GLM4_README = "https://github.com/THUDM/GLM-4/blob/3f79b543647b792aa167c712cd327475ec423f7b/README.md"
GLM4_YARN = {"factor": 4, "original_context": 32768, "source": GLM4_README + "#handling-long-context-yarn"}
XINF_GLM4 = "https://inference.readthedocs.io/en/v1.6.1/models/builtin/llm/glm4-0414.html"
M.append(dense("glm-4-9b-0414", "GLM-4 9B 0414", "glm4",
    [HF + "THUDM/GLM-4-9B-0414/blob/main/config.json", SLIME["glm4-9B"], GLM4_README, XINF_GLM4,
     HF + "unsloth/GLM-4-9B-0414-GGUF"],
    32768, 151552, 4096, 40, 13696, 32, 2, 128, 9_400_279_040,
    [exact("Q4_K_M", 6_166_574_944, hfres("unsloth/GLM-4-9B-0414-GGUF", "GLM-4-9B-0414-Q4_K_M.gguf"))],
    yarn=GLM4_YARN))
LMS_GLM32 = "lmstudio-community/GLM-4-32B-0414-GGUF"; R_GLM32 = "20621a295c480ce7037bed7808533dc356a386bb"
M.append(dense("glm-4-32b-0414", "GLM-4 32B 0414", "glm4",
    [HF + "THUDM/GLM-4-32B-0414/blob/main/config.json", "https://apxml.com/models/glm-4",
     "https://github.com/ikawrakow/ik_llama.cpp/pull/344", GLM4_README, XINF_GLM4,
     "https://github.com/zffr3/llmopenchat/blob/72b48723349e5f40996094baf4578b110f9a9113/llmopenchat/models.py",
     HF + LMS_GLM32 + "/tree/" + R_GLM32],
    32768, 151552, 6144, 61, 23040, 48, 2, 128, 32_566_000_000,
    [exact("Q4_K_M", 19_680_022_112, hfres(LMS_GLM32, "GLM-4-32B-0414-Q4_K_M.gguf", R_GLM32))],
    yarn=GLM4_YARN))

# --- Codestral 22B v0.1 (llama: MistralForCausalLM, no sliding window) ----------------------
# mistralai/Codestral-22B-v0.1 config.json (a quantized copy that keeps it, TechxGenus's AWQ):
# hidden 6144, 56 layers, FFN 16384, 48 heads / 8 KV (head_dim 128), vocab 32768,
# max_position_embeddings 32768, sliding_window null, untied; Mistral's model page: 22B, 32k.
# Parameter count: the Hub's 22.247B (a leaderboard request file). Sizes: lmstudio-community's
# file listing at a pinned revision (bartowski's quants).
CODESTRAL_TREE = HF + "lmstudio-community/Codestral-22B-v0.1-GGUF/tree/16bea76ba9f14e51d07bfa7a2dcc56c4ca7a576a"
M.append(dense("codestral-22b-v0.1", "Codestral 22B v0.1", "llama",
    [HF + "mistralai/Codestral-22B-v0.1/blob/main/config.json",
     HF + "TechxGenus/Codestral-22B-v0.1-AWQ/blob/main/config.json",
     HF + "datasets/OALL/requests/blob/main/mistralai/Codestral-22B-v0.1_eval_request_False_bfloat16_Original.json",
     "https://github.com/mistralai/platform-docs-public/blob/038807d6747eff51cd0d241af2e13c702075d6d4/src/schema/models/models/codestral-24-05.ts",
     CODESTRAL_TREE],
    32768, 32768, 6144, 56, 16384, 48, 8, 128, 22_247_000_000,
    hf_tree(CODESTRAL_TREE, "Codestral-22B-v0.1-{}.gguf",
            [("Q4_K_M", "13.3 GB"), ("Q3_K_M", "10.8 GB"), ("Q5_K_M", "15.7 GB"), ("Q6_K", "18.3 GB"),
             ("Q8_0", "23.6 GB")])))

# --- Mistral Large Instruct 2411 (llama, 123B) ----------------------------------------------
# Mistral's params.json for 2411 (bartowski's exl2 repo keeps it): dim 12288, 88 layers, head_dim
# 128, hidden_dim 28672, 96 heads / 8 KV, vocab 32768. Mistral's model page: 123B parameters,
# 128k context (131072 tokens: the max_position_embeddings Mistral set in the config.json of
# Mistral-Large-Instruct-2407, whose params.json is the same). Sizes: mradermacher's file listing
# at a pinned revision; each quant is one file split into .partNofM pieces, their listed sizes
# added.
ML2411_TREE = HF + "mradermacher/Mistral-Large-Instruct-2411-GGUF/tree/1890a5fba9d746d82908ed2f9404565bd40190c7"
M.append(dense("mistral-large-instruct-2411", "Mistral Large Instruct 2411 (123B)", "llama",
    [HF + "mistralai/Mistral-Large-Instruct-2411/blob/main/config.json",
     HF + "bartowski/Mistral-Large-Instruct-2411-exl2/blob/c17e07c5625482c08cadc29c733c6d78749b1314/params.json",
     "https://github.com/mistralai/platform-docs-public/blob/19c578bb7c67fc844df98aef18fe8f2eaa70dfed/src/schema/models/models/mistral-large-2-1-24-11.ts",
     HF + "casperhansen/mistral-large-instruct-2407-awq/commit/1b91a828d8121dc12dbd493ebfc9cdf4b0a861c3",
     ML2411_TREE],
    131072, 32768, 12288, 88, 28672, 96, 8, 128, 123_000_000_000,
    [hf_parts("Q4_K_M", ["37.6 GB", "35.6 GB"], ML2411_TREE + "/Mistral-Large-Instruct-2411.Q4_K_M.gguf (2 parts)"),
     hf("Q2_K", "45.2 GB", ML2411_TREE.replace("/tree/", "/blob/") + "/Mistral-Large-Instruct-2411.Q2_K.gguf"),
     hf_parts("Q3_K_M", ["30.1 GB", "29 GB"], ML2411_TREE + "/Mistral-Large-Instruct-2411.Q3_K_M.gguf (2 parts)"),
     hf_parts("Q3_K_L", ["33.3 GB", "31.3 GB"], ML2411_TREE + "/Mistral-Large-Instruct-2411.Q3_K_L.gguf (2 parts)"),
     hf_parts("Q4_K_S", ["35.4 GB", "34.1 GB"], ML2411_TREE + "/Mistral-Large-Instruct-2411.Q4_K_S.gguf (2 parts)")]))

# --- DeepSeek-R1-Distill-Llama-70B (llama: Llama 3.3 70B's shapes) --------------------------
# deepseek-ai/DeepSeek-R1-Distill-Llama-70B config.json (a quantized copy that keeps it,
# casperhansen's AWQ of the snapshot): hidden 8192, 80 layers, FFN 28672, 64 heads / 8 KV of 128,
# vocab 128256, max_position_embeddings 131072, untied -- the DeepSeek-R1 README's base model is
# Llama-3.3-70B-Instruct, so params.total is the Llama 3.3 70B entry's 70.6B. Sizes:
# mradermacher's static quants (file listing), unsloth's two Q8_0 parts at a pinned revision.
R1L70_TREE = HF + "mradermacher/DeepSeek-R1-Distill-Llama-70B-GGUF/tree/main"
UR1L70_Q8 = HF + "unsloth/DeepSeek-R1-Distill-Llama-70B-GGUF/tree/475560cd5d7127b481560c0ccb9c9f13c8ab0906/DeepSeek-R1-Distill-Llama-70B-Q8_0"
M.append(dense("deepseek-r1-distill-llama-70b", "DeepSeek-R1-Distill-Llama-70B", "llama",
    [HF + "deepseek-ai/DeepSeek-R1-Distill-Llama-70B/blob/main/config.json",
     HF + "casperhansen/deepseek-r1-distill-llama-70b-awq/blob/main/config.json",
     "https://github.com/deepseek-ai/DeepSeek-R1/blob/main/README.md", R1L70_TREE, UR1L70_Q8],
    131072, 128256, 8192, 80, 28672, 64, 8, 128, 70_600_000_000,
    hf_tree(R1L70_TREE, "DeepSeek-R1-Distill-Llama-70B.{}.gguf",
            [("Q4_K_M", "42.5 GB"), ("Q3_K_M", "34.3 GB"), ("Q4_K_S", "40.3 GB"), ("Q5_K_M", "49.9 GB")])
    + [hf_parts("Q8_0", ["39.8 GB", "35.2 GB"], UR1L70_Q8)]))


self_check(M)

doc = {"schema": "headroom.catalog/1",
       "comment": "Generated by tools/catalog_gen.py; every figure is cited in the entry's sources "
                  "and quants[].source. See docs/catalog.md.",
       "models": M}
print(json.dumps(doc, indent=1, ensure_ascii=False))
