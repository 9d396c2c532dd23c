#!/usr/bin/env python3
"""Writes resources/catalog.json from the cited facts below (kept as Python only so split-file
sums are computed, not typed). Every number comes from the URL listed next to it; see
docs/catalog.md. Run: python3 tools/catalog_gen.py > resources/catalog.json"""
import json

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

# --- Phi ---------------------------------------------------------------------------------
M.append(dense("phi-4", "Phi-4 14B", "phi3",
    [HF + "microsoft/phi-4/blob/main/config.json", HF + "microsoft/phi-4-gguf"],
    16384, 100352, 5120, 40, 17920, 40, 10, 128, 14_700_000_000,
    [q("Q4_K_S", 8_440_762_560, HF + "microsoft/phi-4-gguf/blob/main/phi-4-Q4_K_S.gguf")]))


doc = {"schema": "headroom.catalog/1",
       "comment": "Generated by tools/catalog_gen.py; every figure is cited in the entry's sources "
                  "and quants[].source. See docs/catalog.md.",
       "models": M}
print(json.dumps(doc, indent=1, ensure_ascii=False))
