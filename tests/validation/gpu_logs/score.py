#!/usr/bin/env python3
"""Score Headroom's per-buffer predictions against llama.cpp loads published from real GPUs.

    python3 tests/validation/gpu_logs/score.py --cli build/bin/headroom-cli \
        --out docs/accuracy-gpu.md [--baseline docs/accuracy-gpu.md]

Reads published.json (schema headroom.gpu-logs/1, see README.md beside it). For every load it
can plan it builds Headroom's inputs from what the log prints (the model from print_info, the
GPUs, the flags), runs `headroom-cli plan ... --json` and compares buffer by buffer: model
(weights) buffers, KV, recurrent state, output and compute, per device and on the host. It
writes a markdown report and prints one summary line. With --baseline it exits 1 when the
number of compute buffers within goal, or of KV buffers exact, is lower than the baseline
report's totals line; 0 otherwise.

Standard library only. Nothing is written outside --out and a temporary directory (removed
at the end unless --keep-tmp).
"""

import argparse
import concurrent.futures
import copy
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
MIB = 1024 * 1024
GIB = 1024 * MIB

# Goals (docs/accuracy-gpu.md states them too).
COMPUTE_PCT, COMPUTE_ABS = 5.0, 16.0        # compute: within 5 % or 16 MiB
EXACT_ABS = 0.01                            # KV / recurrent state / output: to 0.01 MiB
WEIGHTS_PCT = 2.0                           # weights: within 2 %
LOW_PCT, LOW_ABS = 1.0, 16.0                # "low": below by more than 1 % and 16 MiB

# catalog.md: header estimate the catalog path subtracts from file_bytes.
HEADER_PER_VOCAB = 48
HEADER_FIXED = 1 * MIB

BACKENDS = {"CUDA": "cuda", "ROCm": "rocm", "Metal": "metal", "Vulkan": "vulkan", "SYCL": "sycl"}
BACKEND_FALLBACK = {"rocm": "cuda", "sycl": "vulkan"}

# llama.cpp llama_model_ftype_name() strings -> quant names.
FTYPE_NAMES = {
    "all f32": "F32", "f16": "F16", "bf16": "BF16",
    "q4_0": "Q4_0", "q4_1": "Q4_1", "q5_0": "Q5_0", "q5_1": "Q5_1", "q8_0": "Q8_0",
    "q2_k - medium": "Q2_K", "q2_k - small": "Q2_K_S",
    "q3_k - small": "Q3_K_S", "q3_k - medium": "Q3_K_M", "q3_k - large": "Q3_K_L",
    "q4_k - small": "Q4_K_S", "q4_k - medium": "Q4_K_M",
    "q5_k - small": "Q5_K_S", "q5_k - medium": "Q5_K_M", "q6_k": "Q6_K",
    "iq2_xxs": "IQ2_XXS", "iq2_xs": "IQ2_XS", "iq2_s": "IQ2_S", "iq2_m": "IQ2_M",
    "iq3_xs": "IQ3_XS", "iq3_xxs": "IQ3_XXS", "iq3_s": "IQ3_S", "iq3_s mix": "IQ3_M",
    "iq1_s": "IQ1_S", "iq1_m": "IQ1_M", "iq4_nl": "IQ4_NL", "iq4_xs": "IQ4_XS",
    "tq1_0": "TQ1_0", "tq2_0": "TQ2_0", "mxfp4 moe": "MXFP4_MOE",
}

# Architectures the catalog schema (docs/catalog.md) cannot express, or that are not text
# generation; the reason is what the report prints.
INEXPRESSIBLE = {
    "bert": "embedding model (bert): non-causal, pooled, no text-generation graph; the GGUF "
            "path refuses it (shape_from_gguf kNotTextGeneration) and the catalog schema has "
            "no encoder/pooling fields",
    "jamba": "jamba: MoE on alternate layers only (expert_layer_period); the catalog's `moe` "
             "applies to every layer after `dense_lead`, so the expert banks cannot be placed",
}

PLACEMENT_KINDS = ["full", "partial", "ngl0", "moe_experts_cpu", "multi_gpu", "row_split"]

PROGRAMS_SERVER = {"server", "llama-server"}


# ----------------------------------------------------------------------------------------------
# small helpers

def fmt(x, nd=2):
    if x is None:
        return "-"
    return f"{x:.{nd}f}"


def pct(pred, logged):
    if logged == 0:
        return 0.0 if pred == 0 else None
    return (pred - logged) / logged * 100.0


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def parse_build(build):
    """'5269 (1d36b367)' -> 5269, 'b10701-cc231cb0d' -> 10701, '0'/None -> None."""
    if not build:
        return None
    m = re.match(r"\s*b?(\d+)", str(build))
    if not m:
        return None
    n = int(m.group(1))
    return n if n > 0 else None


def parse_int_or_list(s):
    if s is None:
        return None
    s = str(s).strip()
    if s.startswith("["):
        try:
            return [int(x) for x in json.loads(s)]
        except (ValueError, TypeError):
            return None
    try:
        return int(float(s))
    except ValueError:
        return None


def per_layer(v, n):
    if v is None:
        return None
    if isinstance(v, list):
        return v if len(v) == n else None
    return [v] * n


def compact(v):
    """A per-layer list with one value becomes that value."""
    if isinstance(v, list) and v and all(x == v[0] for x in v):
        return v[0]
    return v


def pi_int(p, key, default=None):
    v = p.get(key)
    if v is None:
        return default
    try:
        return int(float(str(v).split()[0]))
    except (ValueError, IndexError):
        return default


def parse_size(s):
    """'24.24 GiB (16.00 BPW)' -> (bytes, precision_bytes, bpw)."""
    if not s:
        return None
    m = re.match(r"\s*([0-9.]+)\s*(GiB|MiB|KiB|B)\b(?:\s*\(([0-9.]+)\s*BPW\))?", str(s))
    if not m:
        return None
    num, unit, bpw = m.group(1), m.group(2), m.group(3)
    mult = {"GiB": GIB, "MiB": MIB, "KiB": 1024, "B": 1}[unit]
    decimals = len(num.split(".")[1]) if "." in num else 0
    return (int(round(float(num) * mult)), int(round(0.5 * 10 ** -decimals * mult)),
            float(bpw) if bpw else None)


def parse_params(s):
    if not s:
        return None
    m = re.match(r"\s*([0-9.]+)\s*([KMBT])", str(s))
    if not m:
        return None
    return int(round(float(m.group(1)) * {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[m.group(2)]))


def quant_name(file_type):
    if not file_type:
        return None
    ft = re.sub(r"\s*\(guessed\)\s*$", "", str(file_type)).strip().lower()
    if ft in FTYPE_NAMES:
        return FTYPE_NAMES[ft]
    head = re.sub(r"\s*-\s*[0-9.]+\s*bpw.*$", "", ft).strip()
    if head in FTYPE_NAMES:
        return FTYPE_NAMES[head]
    return re.sub(r"[^A-Za-z0-9_]+", "_", str(file_type)).strip("_").upper() or None


def classify_buft(buft):
    """('dev', index) for a GPU buffer, ('host', None) for CPU / *_Host, else ('other', name)."""
    m = re.match(r"^(CUDA|ROCm|SYCL|Vulkan|MTL)(\d+)(_Split|_Mapped)?$", buft)
    if m:
        return ("dev", int(m.group(2)))
    if buft in ("Metal", "Metal_Mapped"):
        return ("dev", 0)
    if buft.startswith("RPC["):
        return ("other", buft)
    if buft.startswith("CPU") or buft in ("AMX",) or buft.endswith("_Host"):
        return ("host", None)
    return ("other", buft)


# ----------------------------------------------------------------------------------------------
# command-line parsing (the quoted llama.cpp command)

def tokens_of(command):
    if not command:
        return []
    try:
        return shlex.split(command, posix=True)
    except ValueError:
        return command.split()


def flag_value(toks, names):
    for i, t in enumerate(toks):
        for n in names:
            if t == n and i + 1 < len(toks):
                return toks[i + 1]
            if t.startswith(n + "="):
                return t.split("=", 1)[1]
    return None


def has_flag(toks, names):
    return any(t in names or any(t.startswith(n + "=") for n in names) for t in toks)


def program_of(toks):
    for t in toks:
        base = re.split(r"[\\/]", t)[-1]
        base = base.lstrip("!")
        base = re.sub(r"\.exe$", "", base, flags=re.I)
        if base in ("main", "server") or base.startswith("llama-"):
            return base
    return None


# ----------------------------------------------------------------------------------------------
# CLI runner

class Cli:
    def __init__(self, path, env):
        self.path = path
        self.env = env

    def run(self, args, timeout=900):
        last = None
        for _ in range(90):                      # up to ~15 min while the binary is rebuilt
            if not (os.path.isfile(self.path) and os.access(self.path, os.X_OK)):
                time.sleep(10)
                continue
            try:
                p = subprocess.run([self.path] + args, env=self.env, capture_output=True,
                                   text=True, timeout=timeout)
            except (FileNotFoundError, PermissionError, OSError) as e:   # ETXTBSY mid-link
                last = e
                time.sleep(10)
                continue
            if p.returncode < 0 or (p.returncode != 0 and not p.stdout and not p.stderr):
                # killed or replaced mid-run: try again
                last = p
                time.sleep(5)
                continue
            return p
        raise RuntimeError(f"{self.path} unavailable: {last}")


# ----------------------------------------------------------------------------------------------
# catalog: matching and synthesis

def catalog_key(e):
    n = e["n_layer"]
    moe = e.get("moe") or {}
    att = e["attention"]
    return {
        "architecture": e["architecture"],
        "n_embd": e["n_embd"],
        "n_layer": n,
        "n_head": per_layer(att["n_head"], n),
        "n_head_kv": per_layer(att["n_head_kv"], n),
        "n_ff": per_layer(e["n_ff"], n),
        "n_expert": moe.get("n_expert", 0),
        "n_ff_exp": moe.get("n_ff_exp"),
        "dense_lead": moe.get("dense_lead", 0),
        "n_vocab": e["n_vocab"],
        "mla": bool(att.get("kv_lora_rank")),
    }


def log_key(p):
    n = pi_int(p, "n_layer")
    if not n:
        return None
    return {
        "architecture": p.get("arch"),
        "n_embd": pi_int(p, "n_embd"),
        "n_layer": n,
        "n_head": per_layer(parse_int_or_list(p.get("n_head")), n),
        "n_head_kv": per_layer(parse_int_or_list(p.get("n_head_kv")), n),
        "n_ff": per_layer(parse_int_or_list(p.get("n_ff")), n),
        "n_expert": pi_int(p, "n_expert", 0),
        "n_ff_exp": pi_int(p, "n_ff_exp"),
        "n_vocab": pi_int(p, "n_vocab"),
        "mla": pi_int(p, "n_embd_head_k_mla", 0) > 0,
    }


def keys_match(c, l):
    for k in ("architecture", "n_embd", "n_layer", "n_head", "n_expert", "n_vocab", "mla"):
        if c[k] != l[k]:
            return False
    # An MLA file prints the latent cache as one KV head; the catalog keeps n_head_kv = n_head.
    if not c["mla"] and c["n_head_kv"] != l["n_head_kv"]:
        return False
    if c["n_expert"] > 0:
        # print_info's n_ff of a pure-MoE model is the unused dense width; the catalog keeps 0.
        if c["dense_lead"] > 0 and c["n_ff"][0] != (l["n_ff"] or [None])[0]:
            return False
        if l["n_ff_exp"] is not None and c["n_ff_exp"] != l["n_ff_exp"]:
            return False
    elif c["n_ff"] != l["n_ff"]:
        return False
    return True


def guess_tied(arch, n_embd, n_vocab):
    """tied_embeddings is not printed; architectures/sizes known to tie (model configs)."""
    if arch in ("gemma", "gemma2", "gemma3", "gemma3n"):
        return True, "Gemma ties its output head"
    if arch in ("command-r", "cohere2"):
        return True, "Command-R ties its output head"
    if arch == "mamba":
        return True, "Mamba ties its output head"
    if arch in ("qwen2", "qwen2vl") and n_embd <= 2048:
        return True, "Qwen2/2.5(-VL) up to 3B tie their output head"
    if arch == "qwen3" and n_embd <= 2560:
        return True, "Qwen3 up to 4B ties its output head"
    if arch == "llama" and n_vocab == 128256 and n_embd in (2048, 3072):
        return True, "Llama 3.2 1B/3B tie their output head"
    if arch == "llama" and n_vocab == 49152:
        return True, "Granite Code 3B ties its output head (no output.weight: 514 = 32x16+2 tensors)"
    if arch == "phi3" and n_vocab == 200064:
        return True, "Phi-4-mini ties its output head"
    return False, None


FFN_UNGATED = {"gpt2", "starcoder", "starcoder2", "bloom", "falcon", "mpt", "gptneox", "phi2",
               "codeshell", "bert"}


def swa_for(arch, p, n_layer):
    """(sliding_window, swa pattern, n_layer_kv_from_start) as shape_from_gguf.cpp reads them."""
    n_swa = pi_int(p, "n_swa", 0)
    pattern = pi_int(p, "n_swa_pattern", 0)
    if arch == "gemma2":
        return (n_swa or 4096), {"period": pattern if pattern > 1 else 2, "full_at": "end"}, None
    if arch in ("gemma3", "olmo2"):
        if n_swa > 0:
            return n_swa, {"period": pattern if pattern > 1 else (6 if arch == "gemma3" else 4),
                           "full_at": "end"}, None
        return 0, None, None
    if arch == "gemma3n":
        return n_swa, {"period": pattern if pattern > 1 else 5, "full_at": "end"}, 20
    if arch == "cohere2":
        return n_swa, {"period": pattern if pattern > 1 else 4, "full_at": "end"}, None
    if arch == "gpt-oss":
        return n_swa, {"period": 2, "full_at": "end"}, None
    # phi3: llama.cpp disables Phi SWA (hookPhi3); plain architectures ignore the window.
    return 0, None, None


def synth_from_print_info(load, p, file_bytes, precision, qname, eid):
    arch = p.get("arch")
    n = pi_int(p, "n_layer")
    n_embd = pi_int(p, "n_embd")
    n_vocab = pi_int(p, "n_vocab")
    n_ctx_train = pi_int(p, "n_ctx_train", 0) or 4096
    n_head = per_layer(parse_int_or_list(p.get("n_head")), n)
    n_head_kv = per_layer(parse_int_or_list(p.get("n_head_kv")), n)
    n_ff = per_layer(parse_int_or_list(p.get("n_ff")), n)
    n_expert = pi_int(p, "n_expert", 0)
    notes = []
    if arch == "qwen" and n_ff:
        # llama.cpp LLM_ARCH_QWEN creates its FFN tensors {n_embd, n_ff / 2}
        n_ff = [x // 2 for x in n_ff]
        notes.append("qwen (v1): FFN tensors are n_ff/2 wide (llama.cpp), entry n_ff halved")
    if None in (n, n_embd, n_vocab) or n_head is None or n_head_kv is None or n_ff is None:
        raise ValueError("print_info lacks n_layer/n_embd/n_vocab/n_head/n_head_kv/n_ff")
    url = load["source"]["url"]
    e = {
        "id": eid,
        "name": (p.get("general.name") or load["model"].get("file") or load["id"]) + f" [{load['id']}]",
        "architecture": arch,
        "sources": [url],
        "n_ctx_train": n_ctx_train,
        "n_vocab": n_vocab,
        "n_embd": n_embd,
        "n_layer": n,
    }
    hk = pi_int(p, "n_embd_head_k", 0)
    hv = pi_int(p, "n_embd_head_v", 0)
    att = {}
    mla = pi_int(p, "n_embd_head_k_mla", 0) > 0
    if arch == "deepseek2" and pi_int(p, "n_lora_kv", 0) and mla:
        att = {"n_head": compact(n_head), "n_head_kv": compact(n_head),
               "head_dim_k": pi_int(p, "n_embd_head_k_mla"),
               "head_dim_v": pi_int(p, "n_embd_head_v_mla"),
               "kv_lora_rank": pi_int(p, "n_lora_kv"), "rope_dim": pi_int(p, "n_rot")}
        if pi_int(p, "n_lora_q", 0):
            att["q_lora_rank"] = pi_int(p, "n_lora_q")
        notes.append("MLA conversion (key_length_mla printed): latent cache")
    else:
        att = {"n_head": compact(n_head), "n_head_kv": compact(n_head_kv),
               "head_dim_k": max(1, hk), "head_dim_v": max(1, hv)}
        if arch == "deepseek2":
            notes.append("pre-MLA conversion (no key_length_mla printed): llama.cpp caches full "
                         "K/V per head, so the entry has no kv_lora_rank")
    window, swa, kv_from = swa_for(arch, p, n)
    if window and swa:
        att["sliding_window"] = window
        att["swa"] = swa
    if kv_from is not None:
        att["n_layer_kv_from_start"] = kv_from
    e["attention"] = att
    if arch in ("mamba",):
        d_conv, d_inner, d_state = (pi_int(p, "ssm_d_conv", 0), pi_int(p, "ssm_d_inner", 0),
                                    pi_int(p, "ssm_d_state", 0))
        dt_rank = pi_int(p, "ssm_dt_rank", 0)
        # Mamba-1 block: in_proj, conv1d (+bias), x_proj, dt_proj (+bias), A, D, out_proj
        mixer = (2 * n_embd * d_inner + d_inner * (d_conv + 1) + d_inner * (dt_rank + 2 * d_state)
                 + dt_rank * d_inner + d_inner + d_inner * d_state + d_inner + d_inner * n_embd)
        e["recurrent"] = {"all": True, "n_embd_r": (d_conv - 1) * d_inner,
                          "n_embd_s": d_state * d_inner, "mixer_params": mixer}
    if n_expert > 0:
        dense_lead = pi_int(p, "n_layer_dense_lead", 0)
        n_ff_exp = pi_int(p, "n_ff_exp") or n_ff[0]
        moe = {"n_expert": n_expert, "n_expert_used": max(1, pi_int(p, "n_expert_used", 1)),
               "n_ff_exp": n_ff_exp}
        shared = pi_int(p, "n_expert_shared", 0)
        if arch == "qwen2moe" and not shared:
            shared = 1
        if shared:
            moe["n_expert_shared"] = shared
            shexp = pi_int(p, "n_ff_shexp") or (n_ff[0] if arch == "qwen2moe" else None)
            if shexp:
                moe["n_ff_shexp"] = shexp
        if dense_lead:
            moe["dense_lead"] = dense_lead
            e["n_ff"] = n_ff[0]
        else:
            e["n_ff"] = 0
        e["moe"] = moe
    else:
        e["n_ff"] = compact(n_ff)
    tied, why = guess_tied(arch, n_embd, n_vocab)
    e["tied_embeddings"] = tied
    if why:
        notes.append("tied_embeddings assumed: " + why)
    if arch in FFN_UNGATED:
        e["ffn_gated"] = False
    params = parse_params(p.get("model params"))
    if not params:
        params = load["model"].get("n_params_b")
        params = int(params * 1e9) if params else None
    if not params:
        sz = parse_size(p.get("file size") or p.get("model size"))
        params = int(sz[0] * 8 / sz[2]) if sz and sz[2] else 1
    e["params"] = {"total": max(1, params)}
    e["quants"] = [{"name": qname, "file_bytes": file_bytes, "file_bytes_precision": precision,
                    "source": url}]
    return e, notes


def synth_from_catalog(base, load, file_bytes, precision, qname, eid):
    e = copy.deepcopy(base)
    url = load["source"]["url"]
    e["id"] = eid
    e["name"] = base["name"] + f" [{load['id']}]"
    e["sources"] = [url] + [s for s in base["sources"] if s != url]
    e.pop("default_quant", None)
    e.pop("mmproj", None)
    e["quants"] = [{"name": qname, "file_bytes": file_bytes, "file_bytes_precision": precision,
                    "source": url}]
    return e


# ----------------------------------------------------------------------------------------------
# per-load input building

class Skip(Exception):
    pass


def build_inputs(load, catalog, gpu_memory):
    """Returns dict(model=..., args=[...], entry=... or None, notes=[...], ...) or raises Skip."""
    p = load.get("print_info") or {}
    notes = []
    if not p.get("n_embd") or not p.get("n_layer"):
        raise Skip("no print_info hparams in the quoted log")
    arch = p.get("arch")
    if arch in INEXPRESSIBLE:
        raise Skip(INEXPRESSIBLE[arch])
    toks = tokens_of(load.get("command"))
    ctx = load.get("context") or {}
    off = load.get("offload") or {}
    bufs = load["buffers"]

    # ---- model
    lk = log_key(p)
    qname = quant_name(p.get("file type") or p.get("model ftype") or load["model"].get("file_type"))
    size = parse_size(p.get("file size") or p.get("model size"))
    n_vocab = pi_int(p, "n_vocab") or 0
    if not qname:
        raise Skip("no file type in print_info")
    matches = [e for e in catalog if keys_match(catalog_key(e), lk)]
    n_ctx_train = pi_int(p, "n_ctx_train")
    if matches:
        matches.sort(key=lambda e: (e["n_ctx_train"] != n_ctx_train,
                                    not any(q["name"].lower() == qname.lower() for q in e["quants"])))
    base = matches[0] if matches else None
    eid = "gl-" + re.sub(r"[^a-z0-9._-]+", "-", load["id"].lower())
    entry = None
    file_bytes = precision = None
    if size:
        # llama.cpp's "file size" is ml.n_bytes, the tensors' bytes without the GGUF header;
        # the catalog's file_bytes is the whole file, from which the planner subtracts its own
        # header estimate. Adding that estimate back makes weightBytes() the printed figure.
        header = HEADER_PER_VOCAB * n_vocab + HEADER_FIXED
        file_bytes = size[0] + min(header, size[0])
        precision = size[1]
    if base is not None:
        alts = [e["id"] for e in matches[1:]]
        q = next((q for q in base["quants"] if q["name"].lower() == qname.lower()), None)
        if q is not None:
            model = f"{base['id']}:{q['name']}"
            notes.append(f"catalog entry {base['id']}:{q['name']}"
                         + (f" (same hparams: {', '.join(alts)})" if alts else ""))
            if size and abs(q["file_bytes"] - file_bytes) > max(0.01 * file_bytes, 16 * MIB):
                notes.append(f"the logged file ({size[0] / GIB:.2f} GiB of tensors) is not the "
                             f"catalog's {q['name']} file ({q['file_bytes'] / GIB:.2f} GiB)")
            how = "catalog"
        else:
            if not size:
                raise Skip("catalog model without this quant, and no file size printed")
            entry = synth_from_catalog(base, load, file_bytes, precision, qname, eid)
            model = f"{eid}:{qname}"
            notes.append(f"hparams of catalog entry {base['id']}, quant {qname} (not in the "
                         f"catalog) with the logged size")
            how = "catalog hparams + logged quant"
    else:
        if not size:
            raise Skip("model not in the catalog and no file size printed")
        try:
            entry, n2 = synth_from_print_info(load, p, file_bytes, precision, qname, eid)
        except ValueError as e:
            raise Skip(f"print_info incomplete: {e}")
        notes += n2
        model = f"{eid}:{qname}"
        how = "synthesized from print_info"

    # ---- devices present in the log's buffers
    dev_idx = set()
    for cat in ("model", "kv", "compute", "recurrent", "output"):
        for b in bufs.get(cat) or []:
            kind, i = classify_buft(b["buft"])
            if kind == "dev":
                dev_idx.add(i)
            elif kind == "other":
                raise Skip(f"buffer type {b['buft']} (RPC or unknown) not modelled here")
    if not dev_idx:
        raise Skip("no GPU buffer in the log")
    backend_name = load["backend"]
    backend = BACKENDS.get(backend_name)
    devd = flag_value(toks, ["-devd", "--device-draft"]) if off.get("is_draft_model") else None
    remap = None
    if devd:
        m = re.match(r"^[A-Za-z]+(\d+)$", devd)
        if m and dev_idx == {int(m.group(1))}:
            remap = {int(m.group(1)): 0}
            notes.append(f"draft model on {devd} only (-devd): planned as one GPU")
    if remap is None:
        n_dev = max(dev_idx) + 1
        devices = list(range(n_dev))
        remap = {i: i for i in devices}
    else:
        devices = sorted(remap)
    gpus = load.get("gpus") or []
    if len(gpus) > len(dev_idx) and not devd:
        notes.append(f"{len(gpus)} GPUs listed, {len(dev_idx)} hold buffers: planned with the "
                     f"{len(devices)} that do")

    def gpu_for(i):
        for g in gpus:
            if g.get("buft") and classify_buft(g["buft"]) == ("dev", i):
                return g
        for g in gpus:
            if g.get("index") == i:
                return g
        return None

    vram, vsrc = [], []
    for i in devices:
        g = gpu_for(i)
        if g and g.get("free_mib"):
            vram.append(f"{int(g['free_mib'])}MiB")
            vsrc.append("log")
            continue
        mem = gpu_memory(g.get("name")) if g and g.get("name") else None
        if mem:
            vram.append(f"{mem // MIB}MiB")
            vsrc.append("GPU table")
        else:
            vram.append("24GiB")
            vsrc.append("default")
    model_gib = (size[0] / GIB) if size else 64
    ram = max(64, int(math.ceil(model_gib * 1.25 + 16)))

    # ---- flags
    args = ["plan", "--model", model, "--vram", ",".join(vram), "--ram", f"{ram}GiB"]
    if backend == "metal":
        args.append("--uma")
    args += ["--backend", backend]
    n_ctx = ctx.get("n_ctx")
    if n_ctx is None:
        v = flag_value(toks, ["-c", "--ctx-size", "--ctx_size"])
        n_ctx = int(v) if v and v.isdigit() and int(v) > 0 else None
        if n_ctx is None and v == "0":
            n_ctx = pi_int(p, "n_ctx_train")
        if n_ctx is None:
            raise Skip("n_ctx not in the log")
        notes.append("n_ctx from the command line")
    n_ctx = int(n_ctx)
    date = load["source"].get("date") or ""
    build = parse_build(load.get("build"))
    pre_ubatch = (build is not None and build < 2431) or (build is None and date and date < "2024-03-13")
    nb, nub = ctx.get("n_batch"), ctx.get("n_ubatch")
    if nb is None:
        v = flag_value(toks, ["-b", "--batch-size"])
        nb = int(v) if v and v.isdigit() else (512 if pre_ubatch else 2048)
    if nub is None:
        v = flag_value(toks, ["-ub", "--ubatch-size"])
        if v and v.isdigit():
            nub = int(v)
        elif pre_ubatch:
            nub = min(int(nb), n_ctx)
            nb = nub
            notes.append(f"build before the micro-batch split (b2431): graph built for "
                         f"n_batch = {nub} tokens")
        else:
            nub = 512
    nb, nub = int(nb), int(nub)
    args += ["-c", str(n_ctx), "-b", str(nb), "-ub", str(nub)]
    fa = ctx.get("flash_attn")
    if fa is None:
        fa_on = has_flag(toks, ["-fa", "--flash-attn"])
        v = flag_value(toks, ["-fa", "--flash-attn"])
        if v in ("off", "0", "false"):
            fa_on = False
    else:
        fa_on = str(fa).strip().lower() in ("1", "on", "true", "enabled") or "enabled" in str(fa)
    args += ["-fa", "on" if fa_on else "off"]
    tk = ctx.get("type_k") or flag_value(toks, ["-ctk", "--cache-type-k"]) or "f16"
    tv = ctx.get("type_v") or flag_value(toks, ["-ctv", "--cache-type-v"]) or "f16"
    args += ["-ctk", tk, "-ctv", tv]
    np_ = ctx.get("n_seq_max")
    if np_ is None:
        v = flag_value(toks, ["-np", "--parallel"])
        np_ = int(v) if v and v.isdigit() and int(v) > 0 else 1
    args += ["-np", str(int(np_))]
    if str(ctx.get("kv_unified")).lower() == "true":
        args.append("--kv-unified")
    if ctx.get("swa_full") in (True, "true", "1"):
        args.append("--swa-full")
    ngl = off.get("n_gpu_layers")
    if ngl is None:
        ol = off.get("offloaded_layers")
        if ol and re.match(r"^\d+/\d+$", ol):
            ngl = int(ol.split("/")[0])
            notes.append(f"-ngl {ngl} from 'offloaded {ol} layers'")
        else:
            raise Skip("neither -ngl nor 'offloaded N/M layers' in the log")
    args += ["-ngl", str(ngl)]
    for ot in off.get("tensor_overrides") or []:
        args += ["-ot", ot]
    ts = off.get("tensor_split")
    if ts and not devd:
        args += ["-ts", str(ts)]
    sm = off.get("split_mode")
    if not sm and any(b["buft"].endswith("_Split") for b in bufs.get("model") or []):
        sm = "row"
        notes.append("-sm row from the *_Split model buffers")
    if sm:
        args += ["-sm", sm]
    ncmoe = off.get("n_cpu_moe") or flag_value(toks, ["-ncmoe", "--n-cpu-moe"])
    if ncmoe:
        args += ["--n-cpu-moe", str(ncmoe)]
    if has_flag(toks, ["-cmoe", "--cpu-moe"]):
        args.append("--cpu-moe")
    nkvo = bool(off.get("no_kv_offload") or has_flag(toks, ["-nkvo", "--no-kv-offload"]))
    if nkvo:
        args.append("-nkvo")
    if has_flag(toks, ["--no-op-offload"]):
        args.append("--no-op-offload")
    if has_flag(toks, ["--no-mmap"]):
        args.append("--no-mmap")
    if has_flag(toks, ["--mlock"]):
        args.append("--mlock")
    prog = program_of(toks)
    if prog is None:
        program = None
        notes.append("program not quoted: planned for llama-server (the CLI's default)")
    else:
        program = "llama-server" if prog in PROGRAMS_SERVER else "library"
        args += ["--program", program]
    args += ["--llama-version", "v0.5.0"]
    # The log's build, where printed: the plan then replays that build's graph where Headroom
    # knows it differs from v0.5.0's (OlderBuildGraph in core/launch/llama_version.h).
    if build is not None:
        args += ["--llama-build", str(build)]
    args += ["--json"]
    return {
        "model": model, "how": how, "entry": entry, "args": args, "notes": notes,
        "remap": remap, "devices": devices, "vram_src": vsrc, "n_ctx": n_ctx,
        "program": program or "unknown", "prog_raw": prog, "backend": backend,
        "build": build, "fa": fa_on, "np": int(np_), "ub": nub, "nkvo": nkvo,
        "ngl": int(ngl) if str(ngl).isdigit() else ngl,
        "tied": bool((entry or base or {}).get("tied_embeddings")),
    }


# ----------------------------------------------------------------------------------------------
# comparison

def sum_bufs(items):
    return sum(b["mib"] for b in items) if items else 0.0


def goal_of(cat, pred, logged, upper_bound=False):
    d = pred - logged
    low = d < -max(LOW_PCT / 100 * logged, LOW_ABS)
    if upper_bound:
        return d <= EXACT_ABS, False
    if cat == "compute":
        ok = abs(d) <= max(COMPUTE_PCT / 100 * logged, COMPUTE_ABS)
    elif cat == "weights":
        ok = abs(d) <= max(WEIGHTS_PCT / 100 * logged, EXACT_ABS)
    else:
        ok = abs(d) <= EXACT_ABS
    return ok and not low, low


def full_kv_mib(p, n_ctx, tk, tv):
    """KV of every layer at n_ctx cells, from print_info's per-layer widths (for mechanisms)."""
    n = pi_int(p, "n_layer")
    k = per_layer(parse_int_or_list(p.get("n_embd_k_gqa")), n)
    v = per_layer(parse_int_or_list(p.get("n_embd_v_gqa")), n)
    if not k or not v:
        return None
    size = {"f32": 4, "f16": 2, "bf16": 2, "q8_0": 34 / 32, "q4_0": 18 / 32, "q4_1": 20 / 32,
            "q5_0": 22 / 32, "q5_1": 24 / 32, "iq4_nl": 18 / 32}
    if tk not in size or tv not in size:
        return None
    return n_ctx * (sum(k) * size[tk] + sum(v) * size[tv]) / MIB


BYTES_PER_WEIGHT = {
    "f32": 4, "f16": 2, "q8_0": 34 / 32, "q6_K": 210 / 256, "q5_K": 176 / 256, "q5_1": 24 / 32,
    "q5_0": 22 / 32, "q4_K": 144 / 256, "q4_1": 20 / 32, "q4_0": 18 / 32, "iq4_xs": 136 / 256,
    "q3_K": 110 / 256, "iq3_s": 110 / 256, "iq3_xxs": 98 / 256, "q2_K": 84 / 256,
    "iq2_s": 82 / 256, "iq2_xs": 74 / 256, "iq2_xxs": 66 / 256, "iq1_s": 50 / 256,
}


def tensor_type_of(mib, n_weights):
    """The ggml type whose row bytes make n_weights come to mib (to the log's 0.01), or None."""
    if not n_weights:
        return None
    for t, b in BYTES_PER_WEIGHT.items():
        if abs(n_weights * b / MIB - mib) <= 0.011:
            return t
    return None


def compare(load, inp, plan):
    """List of row dicts for one load."""
    rungs = plan.get("rungs") or []
    c = inp["n_ctx"]
    rung = next((r for r in rungs if r["context"] == c), None)
    if rung is None:
        rung = next((r for r in sorted(rungs, key=lambda r: r["context"]) if r["context"] >= c), None)
    if rung is None:
        return [], f"no rung at or above -c {c}"
    bufs = load["buffers"]
    p = load["print_info"]
    devs = rung["devices"]
    host = rung["host"]
    tags = load.get("placement_tags") or []
    remap = inp["remap"]
    rows = []
    mapped_partial = any(t in tags for t in ("partial", "moe_experts_cpu"))

    def by_target(cat):
        dev, hst, present = {}, [], False
        for b in bufs.get(cat) or []:
            present = True
            kind, i = classify_buft(b["buft"])
            if kind == "dev":
                dev.setdefault(remap.get(i, i), []).append(b)
            elif kind == "host":
                hst.append(b)
        return dev, hst, present

    def add(cat, where, pred_bytes, logged_items, extra_note=None, upper_bound=False):
        logged = sum_bufs(logged_items)
        pred = pred_bytes / MIB
        ok, low = goal_of(cat, pred, logged, upper_bound)
        names = "+".join(sorted({b["buft"] for b in logged_items}))
        rows.append({
            "load": load["id"], "cat": cat, "where": where, "buffer": f"{names} {cat}",
            "pred": pred, "logged": logged, "err": pct(pred, logged), "ok": ok, "low": low,
            "note": extra_note, "upper_bound": upper_bound,
        })
        return rows[-1]

    dev_names = {v: k for k, v in remap.items()}

    def dev_terms(j):
        return devs[j]["terms"] if j < len(devs) else None

    # weights
    dev, hst, present = by_target("model")
    for j, items in sorted(dev.items()):
        t = dev_terms(j)
        if t is not None:
            add("weights", f"GPU{dev_names.get(j, j)}", t["weights"], items)
    if hst:
        # With mmap the CPU model buffer ("CPU" in 2024 builds, "CPU_Mapped" later) is the file
        # range spanning every host tensor: under partial offload or -ot it includes the device
        # layers between them, an address-space figure rather than memory.
        mmap_on = "--no-mmap" not in inp["args"]
        ub = (mapped_partial and mmap_on and bool(dev)
              and any(b["buft"] in ("CPU", "CPU_Mapped") for b in hst))
        add("weights", "host", host["weights"], hst,
            "mmap'd file range (an upper bound): goal is plan <= log" if ub else None, ub)
    # KV (and a recurrent state old builds kept in the KV cache)
    recurrent_logged = bool(bufs.get("recurrent"))
    dev, hst, present = by_target("kv")
    for j, items in sorted(dev.items()):
        t = dev_terms(j)
        if t is None:
            continue
        pred, note = t["kv"], None
        if not recurrent_logged and t.get("recurrent_state"):
            pred += t["recurrent_state"]
            note = "old build kept the recurrent state in its KV buffer: plan = KV + state"
        add("kv", f"GPU{dev_names.get(j, j)}", pred, items, note)
    if hst:
        pred, note = host["kv"], None
        if not recurrent_logged and host.get("recurrent_state"):
            pred += host["recurrent_state"]
            note = "old build kept the recurrent state in its KV buffer: plan = KV + state"
        add("kv", "host", pred, hst, note)
    # recurrent state
    dev, hst, present = by_target("recurrent")
    for j, items in sorted(dev.items()):
        t = dev_terms(j)
        if t is not None:
            add("rs", f"GPU{dev_names.get(j, j)}", t["recurrent_state"], items)
    if hst:
        add("rs", "host", host["recurrent_state"], hst)
    # output
    dev, hst, present = by_target("output")
    out_items = hst + [b for items in dev.values() for b in items]
    if out_items:
        pred = host["output"] + sum(d["terms"]["output"] for d in devs)
        add("output", "host", pred, out_items)
    # compute
    dev, hst, present = by_target("compute")
    for j, items in sorted(dev.items()):
        t = dev_terms(j)
        if t is not None:
            add("compute", f"GPU{dev_names.get(j, j)}", t["compute"], items)
    if hst:
        add("compute", "host", host["compute"], hst)

    # mechanisms visible by arithmetic (notes only: nothing here changes a figure)
    ctxl = load.get("context") or {}
    tk, tv = ctxl.get("type_k") or "f16", ctxl.get("type_v") or "f16"
    n_layer = pi_int(p, "n_layer") or 0
    n_vocab = pi_int(p, "n_vocab") or 0
    arch = p.get("arch")
    kv_log_total = sum_bufs(bufs.get("kv") or [])
    kv_pred_total = (sum(d["terms"]["kv"] for d in devs) + host["kv"]) / MIB
    full = full_kv_mib(p, c, tk, tv)
    full_rung = full_kv_mib(p, rung["context"], tk, tv)
    uniform = full is not None and len(set(per_layer(parse_int_or_list(p.get("n_embd_k_gqa")), n_layer) or [0, 1])) == 1
    load_mech = []
    # -ngl counting: old builds put ngl repeating layers on the GPU (i_gpu_start = n_layer - ngl);
    # newer llama.cpp, and the plan, count the output layer among them (n_layer + 1 - ngl).
    ngl = inp.get("ngl")
    if isinstance(ngl, int) and 0 < ngl <= n_layer and uniform and full:
        per = full / n_layer
        per_rung = full_rung / n_layer
        dkv_log = sum(sum_bufs(v) for v in by_target("kv")[0].values())
        dkv_plan = sum(d["terms"]["kv"] for d in devs) / MIB
        if per > 0 and abs(dkv_log / per - ngl) < 0.01 and abs(dkv_plan / per_rung - (ngl - 1)) < 0.01:
            load_mech.append(f"-ngl {ngl}: the log's build put {ngl} repeating layers on the GPU "
                             f"and the output layer on the CPU (i_gpu_start = n_layer - ngl); "
                             f"v0.5.0 counts the output layer in -ngl (n_layer + 1 - ngl), so the "
                             f"plan has {ngl - 1} layers + output there")
    np_ = inp.get("np", 1)
    build = inp.get("build")
    # A printed build before b5913 is priced with its one stream (--llama-build); only an
    # unprinted one is left to this note.
    old_streams = np_ > 1 and not ctxl.get("kv_unified") and build is None
    for r in rows:
        if r["ok"] or r["note"]:
            continue
        mech = list(load_mech) if (r["cat"] in ("weights", "kv") or
                                    (r["cat"] == "compute" and r["where"] != "host")) else []
        if r["cat"] == "kv":
            if rung["context"] != c and full_rung and abs(kv_pred_total - full_rung) < 0.5 \
                    and full and abs(kv_log_total - full) < 0.5:
                mech.append(f"n_ctx padding: the v0.5.0 plan pads -c {c} to {rung['context']} "
                            f"cells; the log's build kept {c}")
            elif full and abs(kv_log_total - full) < 0.5 and kv_pred_total < kv_log_total:
                if arch == "deepseek2" and pi_int(p, "n_embd_head_k_mla", 0) > 0:
                    mech.append("the log's build stored MLA's V (n_embd_v_gqa = "
                                f"{p.get('n_embd_v_gqa')}) beside the latent K; v0.5.0 caches K only")
                elif arch in ("gemma2", "gemma3", "gemma3n", "cohere2"):
                    mech.append("the log's build cached the sliding-window layers at the full "
                                "context (before llama.cpp's SWA cache); the plan uses v0.5.0's "
                                "window-sized cache")
                else:
                    mech.append("the log's KV is every layer x n_ctx at print_info's widths; "
                                "v0.5.0 caches less")
            elif full and abs(kv_pred_total - full) < 0.5 and kv_pred_total > kv_log_total:
                mech.append("the plan caches every layer at the full context; the log's build "
                            "cached less")
            elif abs(kv_pred_total - kv_log_total) < 0.5:
                mech.append("total KV matches; its split over GPUs and host differs"
                            if len(devs) > 1 else "total KV matches; its split between GPU and host differs")
            elif old_streams and arch in ("gemma2", "gemma3", "gemma3n", "cohere2", "gpt-oss"):
                mech.append(f"-np {np_}: the log's build sized the SWA cache for one stream "
                            f"shared by all sequences; v0.5.0 gives each of the {np_} streams "
                            "its own window")
        if r["cat"] == "output" and n_vocab:
            rl = r["logged"] * MIB / (n_vocab * 4)
            rp = r["pred"] * MIB / (n_vocab * 4)
            tol = 0.0051 * MIB / (n_vocab * 4) + 0.001    # the log's 0.01 MiB rounding, in rows
            if rl >= 0.9 and abs(rl - round(rl)) <= tol and abs(rp - round(rp)) <= tol:
                mech.append(f"the log reserves {round(rl)} logits rows of n_vocab floats, "
                            f"the plan {round(rp)}")
        if r["cat"] == "compute":
            if (load.get("offload") or {}).get("pipeline_parallelism_n_copies"):
                mech.append("pipeline parallelism (n_copies=4) in the log")
            if old_streams:
                mech.append(f"-np {np_}: the log's build had one KV stream for all sequences "
                            f"(attention over all {c} cells); the plan prices v0.5.0's "
                            f"per-sequence streams ({c // np_} cells each) as no --kv-unified "
                            "was logged")
            if inp.get("nkvo") and r["where"] == "host" and r["low"]:
                nh = parse_int_or_list(p.get("n_head"))
                nh = max(nh) if isinstance(nh, list) else nh
                if nh and not inp.get("fa"):
                    kq = c * inp["ub"] * nh * 4 / MIB
                    mech.append(f"-nkvo: attention runs on the CPU over the host KV; its KQ "
                                f"(n_ctx x n_ubatch x n_head f32 = {kq:.0f} MiB) sits in the host "
                                "compute buffer, which the plan does not price")
                else:
                    mech.append("-nkvo: attention runs on the CPU; the plan's host compute "
                                "does not hold it")
            host_kv = sum_bufs(by_target("kv")[1])
            if r["where"] == "host" and r["low"] and host_kv > 0 and not inp.get("fa") \
                    and not inp.get("nkvo"):
                nh = parse_int_or_list(p.get("n_head"))
                nh = max(nh) if isinstance(nh, list) else nh
                if nh:
                    kq = c * inp["ub"] * nh * 4 / MIB
                    mech.append(f"host layers' attention runs on the CPU over their host KV; "
                                f"its KQ (n_ctx x n_ubatch x n_head f32 = {kq:.0f} MiB) belongs "
                                "in the host compute buffer")
            if r["where"] != "host" and r["pred"] == 0 and r["logged"] > 0:
                mech.append("the plan prices no device compute here (closed-form estimate, -ngl "
                            "0), while llama.cpp offloads the host weights' matmuls to the GPU")
            if (plan.get("resolved") or {}).get("compute") == "estimate":
                mech.append(f"closed-form compute estimate: the plan has no graph skeleton for "
                            f"'{arch}' with these sizes")
            if not mech:
                yr = load.get("year")
                mech.append(f"build {build or '?'} ({yr}), older than the v0.4.0/v0.5.0 graphs "
                            "the plan replays" + ("; program not quoted" if inp["program"] == "unknown" else ""))
        if r["cat"] == "weights":
            fname = (load.get("model") or {}).get("file") or ""
            if re.search(r"UD-|_XL|_L\.gguf|i1-", fname):
                mech.append("a dynamic / _L / imatrix mixture: its tensor types differ from "
                            "llama-quantize's standard rules, so the per-tensor split is an estimate")
            if arch == "gemma3n":
                mech.append("Gemma 3n's per-layer embeddings and AltUp/LAuReL tensors are not in "
                            "the catalog's parameter split (the total is the file's)")
            if any("is not the catalog's" in n for n in inp["notes"]):
                mech.append("a different GGUF than the catalog's quant")
            if r["where"] != "host" and len(devs) > 1:
                why = "" if all(v == "log" for v in inp["vram_src"]) else " (the log prints no free memory for every GPU)"
                mech.append("the layer split over the GPUs differs" + why)
            if r["where"] == "host" and "full" in tags and not r["upper_bound"]:
                ne = pi_int(p, "n_embd") or 0
                tl, tp = tensor_type_of(r["logged"], n_vocab * ne), tensor_type_of(r["pred"], n_vocab * ne)
                if tl and tl != tp:
                    mech.append(f"host weights under full offload are token_embd: {tl} in the "
                                f"file (n_vocab x n_embd x its block size = the log), the typed "
                                f"split gives {tp or 'another size'}")
            if r["where"] == "host":
                if any(b["buft"] in ("AMX", "CPU_AARCH64", "CPU_REPACK") for b in bufs.get("model") or []):
                    mech.append("AMX / CPU_AARCH64 repack buffers: a repacked second copy of host "
                                "weights, not priced")
                if inp.get("tied") and "ngl0" in tags and r["pred"] > r["logged"]:
                    mech.append("tied output head charged again on the host; under mmap "
                                "llama.cpp's duplicate shares token_embd's mapped bytes")
        if r["cat"] == "kv" and r["where"] != "host" and len(devs) > 1 and not mech:
            mech.append("the layer split over the GPUs differs")
        if not mech and r["cat"] in ("weights", "kv", "output", "rs"):
            mech.append(f"build {build or '?'} ({load.get('year')}); no specific mechanism seen")
        r["note"] = "; ".join(dict.fromkeys(mech)) if mech else None
    return rows, None


# ----------------------------------------------------------------------------------------------
# report

def summarize(rows):
    s = {}
    s["buffers"] = len(rows)
    s["within_goal"] = sum(r["ok"] for r in rows)
    s["low"] = sum(r["low"] for r in rows)
    comp = [r for r in rows if r["cat"] == "compute"]
    s["compute"] = len(comp)
    s["compute_within_goal"] = sum(r["ok"] for r in comp)
    s["compute_low"] = sum(r["low"] for r in comp)
    kv = [r for r in rows if r["cat"] == "kv"]
    s["kv"] = len(kv)
    s["kv_exact"] = sum(r["ok"] for r in kv)
    w = [r for r in rows if r["cat"] == "weights"]
    s["weights"] = len(w)
    s["weights_within_goal"] = sum(r["ok"] for r in w)
    s["weights_within_2pct"] = sum(
        (r["ok"] if r["upper_bound"] else abs(r["pred"] - r["logged"]) <= max(0.02 * r["logged"], EXACT_ABS))
        for r in w)
    return s


def cat_line(rows, cat, where):
    sel = [r for r in rows if r["cat"] == cat and (where is None or
                                                     (where == "host") == (r["where"] == "host"))]
    if not sel:
        return None
    errs = [r["err"] for r in sel if r["err"] is not None]
    below = [r["err"] for r in sel if r["err"] is not None and not r["upper_bound"]]
    return {
        "n": len(sel), "ok": sum(r["ok"] for r in sel), "low": sum(r["low"] for r in sel),
        "med": statistics.median(errs) if errs else None,
        "worst_low": min(below) if below else None,
    }


def group_table(title, groups, rows_of):
    out = [f"### {title}", "",
           "| group | loads | buffers | device compute in goal | device compute low | host compute in goal "
           "| host compute low | KV exact | weights in goal (2 %) | all low |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name, loads in groups:
        rows = [r for lid in loads for r in rows_of.get(lid, [])]
        if not rows:
            out.append(f"| {name} | {len(loads)} | 0 | - | - | - | - | - | - | - |")
            continue
        dc = cat_line(rows, "compute", "dev")
        hc = cat_line(rows, "compute", "host")
        kv = cat_line(rows, "kv", None)
        w = cat_line(rows, "weights", None)
        f = lambda x, k: f"{x[k]}/{x['n']}" if x else "-"
        out.append(f"| {name} | {len(loads)} | {len(rows)} | {f(dc, 'ok')} | {dc['low'] if dc else '-'} "
                   f"| {f(hc, 'ok')} | {hc['low'] if hc else '-'} | {f(kv, 'ok')} | {f(w, 'ok')} "
                   f"| {sum(r['low'] for r in rows)} |")
    out.append("")
    return out


MECHANISMS = [
    (r"repeating layers on the GPU", "-ngl N counts the output layer in v0.5.0 (N-1 layers + output), "
                                     "the log's build put N layers on the GPU"),
    (r"n_ctx padding", "the plan pads n_ctx to 256 cells, the log's build kept its own padding"),
    (r"one KV stream for all sequences", "-np > 1: one KV stream for all sequences in the log's build, "
                                         "per-sequence streams in the plan"),
    (r"SWA cache for one stream", "-np > 1: SWA cache sized for one stream in the log's build"),
    (r"stored MLA's V", "MLA: the log's build cached V beside the latent K"),
    (r"sliding-window layers at the full", "SWA layers cached at full context (before llama.cpp's SWA cache)"),
    (r"every layer x n_ctx at print_info", "the log's build cached every layer at print_info's widths"),
    (r"logits rows", "output buffer: a different number of logits rows reserved"),
    (r"pipeline parallelism", "pipeline parallelism (n_copies=4) in the log"),
    (r"^-nkvo|; -nkvo", "-nkvo: host attention not priced in the host compute"),
    (r"host layers' attention", "partial offload: host layers' attention KQ not priced in the host compute"),
    (r"prices no device compute", "closed-form estimate prices no device compute under -ngl 0"),
    (r"closed-form compute estimate", "closed-form compute estimate (no graph skeleton)"),
    (r"split over the GPUs differs|split over GPUs and host", "multi-GPU: the layer split differs"),
    (r"split between GPU and host differs", "partial offload: total KV right, GPU/host split differs"),
    (r"are token_embd", "full offload: token_embd's type differs from the typed split"),
    (r"dynamic / _L / imatrix", "dynamic / _L mixture: per-tensor split is an estimate"),
    (r"Gemma 3n's per-layer", "Gemma 3n tensors outside the catalog's parameter split"),
    (r"different GGUF", "the logged file is not the catalog's quant file"),
    (r"tied output head charged again", "tied output head charged twice on the host under mmap"),
    (r"repack buffers", "AMX / CPU_AARCH64 repack buffers not priced"),
    (r"older than the v0.4.0/v0.5.0|no specific mechanism seen", "no specific mechanism seen (an older build than the modelled graphs)"),
]


def mechanism_counts(rows):
    out = []
    for pat, label in MECHANISMS:
        sel = [r for r in rows if not r["ok"] and r["note"] and re.search(pat, r["note"])]
        if sel:
            out.append((label, len(sel), sum(r["low"] for r in sel),
                        sorted({r["load"] for r in sel})))
    none = [r for r in rows if not r["ok"] and not r["note"]]
    if none:
        out.append(("no mechanism noted", len(none), sum(r["low"] for r in none),
                    sorted({r["load"] for r in none})))
    return out


def write_report(path, ctx):
    loads, results, skipped, refusals, rows_of = (ctx["loads"], ctx["results"], ctx["skipped"],
                                                  ctx["refusals"], ctx["rows_of"])
    all_rows = [r for lid in rows_of for r in rows_of[lid]]
    s = summarize(all_rows)
    L = []
    L.append("# Accuracy against llama.cpp loads published from real GPUs")
    L.append("")
    L.append("Generated by `tests/validation/gpu_logs/score.py`; do not edit by hand. Regenerate "
             "from the repository root with:")
    L.append("")
    L.append("```")
    L.append("python3 tests/validation/gpu_logs/score.py --cli build/bin/headroom-cli --out docs/accuracy-gpu.md")
    L.append("```")
    L.append("")
    L.append(f"CLI: `{ctx['cli_version']}`. Data: `tests/validation/gpu_logs/published.json` "
             f"({len(loads)} loads users published with their llama.cpp logs; see the README "
             "there for how they were collected). As a test: `score.py --cli PATH --out "
             "REPORT.md --baseline docs/accuracy-gpu.md` exits 1 when fewer compute buffers are "
             "within goal, or fewer KV buffers exact, than the totals line below.")
    L.append("")
    L.append("## Totals")
    L.append("")
    L.append(f"Scored {len(results)} of {len(loads)} loads ({s['buffers']} buffers); "
             f"skipped {len(skipped)} (reasons below).")
    L.append("")
    L.append("Totals: " + " ".join(f"{k}={s[k]}" for k in
                                   ("buffers", "within_goal", "low", "compute", "compute_within_goal",
                                    "compute_low", "kv", "kv_exact", "weights", "weights_within_goal",
                                    "weights_within_2pct")))
    L.append("")
    L.append("| buffer | count | within goal | low | median error | most below |")
    L.append("|---|---|---|---|---|---|")
    for cat, where, label in (("compute", "dev", "device compute"), ("compute", "host", "host compute"),
                              ("kv", "dev", "device KV"), ("kv", "host", "host KV"),
                              ("rs", None, "recurrent state"), ("output", None, "output"),
                              ("weights", "dev", "device weights"), ("weights", "host", "host weights")):
        x = cat_line(all_rows, cat, where)
        if not x:
            continue
        L.append(f"| {label} | {x['n']} | {x['ok']} | {x['low']} | "
                 f"{fmt(x['med'], 1) + ' %' if x['med'] is not None else '-'} | "
                 f"{fmt(x['worst_low'], 1) + ' %' if x['worst_low'] is not None else '-'} |")
    L.append("")
    L.append(f"Goals: compute within {COMPUTE_PCT:g} % or {COMPUTE_ABS:g} MiB; KV, recurrent state "
             f"and output exact to {EXACT_ABS} MiB (the log's rounding); weights within "
             f"{WEIGHTS_PCT:g} %; **low** = the plan below the log by more than {LOW_PCT:g} % and "
             f"{LOW_ABS:g} MiB (the one direction a capacity planner must not miss); a low "
             "buffer is never within goal. A host "
             "`CPU_Mapped` model buffer under partial offload or `-ot` is the mmap'd file range, "
             "not resident memory; there the goal is plan <= log and it is never low. Errors are "
             "(plan - log) / log.")
    L.append("")
    L.append("**Read these figures by source, not by row.** Every log is an older llama.cpp "
             "build than the graphs Headroom replays (its v0.4.0/v0.5.0 profiles, 2026 "
             "snapshots). Depending on the build, a log predates the micro-batch split, llama.cpp's "
             "SWA cache, V-less MLA caching, per-sequence KV streams, -ngl counting the output "
             "layer, 256-cell n_ctx padding and several allocator changes (see Mechanisms). A "
             "miss in an old build measures how llama.cpp changed as much as how Headroom models "
             "it. No 2026 load prints its hparams, so none is scored.")
    L.append("")
    L.append("## How each load is planned")
    L.append("")
    L.append("- **Model.** A load whose print_info hparams (architecture, n_embd, n_layer, "
             "n_head, n_head_kv, n_ff, n_expert, vocabulary; for MoE the expert width instead of "
             "the unused dense n_ff; MLA vs full K/V for DeepSeek-2) equal a catalog entry's uses "
             "that id with the quant named by print_info's `file type`. Same hparams but a quant "
             "the catalog lacks: a copy of the entry with that quant. Otherwise an entry is "
             "synthesized from print_info (`gl-<load id>`, the thread URL as source) and written "
             "with the built-in catalog into a temporary resources dir (`HEADROOM_RESOURCES`). "
             "A synthesized quant's `file_bytes` is print_info's `file size` (llama.cpp's "
             "`ml.n_bytes`: tensor bytes, no header) plus the catalog's own header estimate "
             "(48 B x n_vocab + 1 MiB), so the planner's weight bytes equal the printed figure; "
             "`file_bytes_precision` is half the printed last digit. `tied_embeddings` is not "
             "printed: assumed for Gemma, Command-R, Mamba, Qwen2/2.5 <= 3B, Qwen3 <= 4B, Llama 3.2 1B/3B, "
             "Granite Code 3B and Phi-4-mini. SWA patterns follow shape_from_gguf.cpp's rules "
             "(Gemma 2: 2, Gemma 3: 6, Gemma 3n: 5 with KV from layer 20; Phi-3's window off).")
    L.append("- **Hardware.** One `--vram` per GPU that holds a buffer in the log: the log's "
             "`MiB free` where printed, else the GPU table's memory for the logged name, else "
             "24 GiB; `--ram` = 1.25 x the model + 16 GiB (at least 64 GiB); `--uma` on Metal; "
             "`--backend` from the log's backend. Memory does not change the priced buffers of "
             "a pinned placement.")
    L.append("- **Flags, as logged.** `-c` = the log's n_ctx; `-b`/`-ub`, `-fa`, `-ctk`/`-ctv`, "
             "`-np` (n_seq_max), `--kv-unified`, `--swa-full` from the `llama_context` lines, "
             "else the quoted command, else that build's defaults (before b2431 the graph was "
             "built for n_batch = min(512, n_ctx) tokens); `-ngl` from the command, else the "
             "printed `offloaded N/M layers`; every `-ot`, `-ts`, `-sm` (row when `*_Split` "
             "buffers are printed), `--n-cpu-moe`, `-nkvo`, `--no-op-offload`, `--no-mmap`; "
             "`--program llama-server` for `server`/`llama-server`, `--program library` for "
             "every other program (unquoted: the CLI's default, llama-server); "
             "`--llama-version v0.5.0`, and `--llama-build N` with the log's build number where it is printed (the plan then prices the differences Headroom knows for that build: the F32 KQ mask and its F16 cast under flash attention before llama.cpp PR #23764, one KV stream for all sequences before b5913, and -ngl without the output layer up to b4783). A flag the CLI refuses skips the load (listed below).")
    L.append("- **Buffers.** Device model buffers are summed per GPU (`CUDA0` + `CUDA0_Split`, "
             "Metal's mapped pieces); host model buffers are `CPU`, `CPU_Mapped`, `*_Host`, "
             "`AMX`, `CPU_AARCH64`; KV per GPU and host (`CPU`, `*_Host`), both caches of an "
             "iSWA model summed; host compute is `CPU` + `*_Host`. The plan's rung is the one at "
             "the asked -c, or the first above it. A buffer the log does not print is not "
             "scored.")
    L.append("")
    if ctx["backend_notes"]:
        L.append("Backends: " + "; ".join(ctx["backend_notes"]) + ".")
        L.append("")

    # group tables
    scored_ids = [l["id"] for l in loads if l["id"] in results]
    by = lambda f: sorted({f(l) for l in loads if l["id"] in results}, key=str)
    L.append("## By group")
    L.append("")
    groups = [(b, [l["id"] for l in loads if l["id"] in results and l["backend"] == b])
              for b in by(lambda l: l["backend"])]
    L += group_table("By backend", groups, rows_of)
    groups = [(str(y), [l["id"] for l in loads if l["id"] in results and l["year"] == y])
              for y in (2024, 2025, 2026)]
    L += group_table("By build year", groups, rows_of)
    groups = [(k, [l["id"] for l in loads if l["id"] in results and k in (l.get("placement_tags") or [])])
              for k in PLACEMENT_KINDS]
    L += group_table("By placement kind (a load can be in several)", groups, rows_of)
    groups = [(k, [l["id"] for l in loads if l["id"] in results and results[l["id"]]["compute_model"] == k])
              for k in ("replayed", "estimate")]
    L += group_table("By compute model (`replayed`: a graph skeleton; `estimate`: closed form)",
                     groups, rows_of)

    # per source
    L.append("## By source (one user's machine and build)")
    L.append("")
    L.append("A source is one thread, one poster and one build. The project validates by whole "
             "sources, never by single rows.")
    L.append("")
    L.append("| source | build | backend | loads | buffers | within goal | low | median error |")
    L.append("|---|---|---|---|---|---|---|---|")
    srcs = {}
    for l in loads:
        if l["id"] not in results:
            continue
        key = (l["source"]["url"], l["source"].get("who") or "", str(l.get("build") or "-"))
        srcs.setdefault(key, []).append(l)
    def src_order(k):
        m = re.search(r"github\.com/([^/]+/[^/]+)/\w+/(\d+)", k[0])
        return (m.group(1), int(m.group(2)), k[1], k[2]) if m else (k[0], 0, k[1], k[2])
    for key in sorted(srcs, key=src_order):
        ls = srcs[key]
        rows = [r for l in ls for r in rows_of.get(l["id"], [])]
        errs = [r["err"] for r in rows if r["err"] is not None]
        who = f" ({key[1]})" if key[1] else ""
        L.append(f"| {key[0]}{md_escape(who)} | {md_escape(key[2])} | {ls[0]['backend']} | {len(ls)} "
                 f"| {len(rows)} | {sum(r['ok'] for r in rows)} | {sum(r['low'] for r in rows)} | "
                 f"{fmt(statistics.median(errs), 1) + ' %' if errs else '-'} |")
    L.append("")

    # mechanisms
    L.append("## Mechanisms behind the misses")
    L.append("")
    L.append("What the script can see by arithmetic on the log (KV layer counts, row counts, "
             "tensor sizes) or from its flags; a buffer can show several. Nothing here changes a "
             "figure: the plans are scored as the CLI prices them.")
    L.append("")
    L.append("| mechanism | buffers outside goal | of them low | loads |")
    L.append("|---|---|---|---|")
    for label, n, low, ids in mechanism_counts(all_rows):
        L.append(f"| {md_escape(label)} | {n} | {low} | {', '.join(ids)} |")
    L.append("")

    # older builds' graphs
    older = ctx.get("older_graph") or {}
    L.append("## What the log's own build changes")
    L.append("")
    L.append("Where the log prints its build and Headroom knows that build's compute graph differs "
             "from v0.5.0's (`--llama-build`, `OlderBuildGraph` in core/launch/llama_version.h), the "
             "plan above replays the older graph. Three differences are known. Up to b4783 at least, "
             "`-ngl N` put N repeating layers on the GPUs and the output layer on the CPU "
             "(`i_gpu_start = n_layer - ngl`; v0.5.0 counts the output among the N). Before b5913 (PR #14363) "
             "every sequence shared one KV stream, as `--kv-unified` keeps them now (attention over "
             "all n_ctx cells), so a `-np` > 1 load is priced unified. Before llama.cpp "
             "PR #23764 (tags b9341-b9518, 2026-05-29) `build_attn_inp_kv` made the KQ mask an F32 "
             "graph input and flash attention read `ggml_cast(mask, F16)`, so the CPU's compute "
             "buffer held the F32 mask and the device that runs the attention both its copy and "
             "the F16 cast; v0.4.0 and v0.5.0 make the mask F16 directly "
             "(`build_attn_inp_kq_mask`). The last column is the same plan on v0.5.0's graph, what "
             "the same flags allocate on a v0.5.0 build.")
    L.append("")
    if older:
        n_rows = [x for v in older.values() for x in v]
        in_old = sum(r["ok"] for r, _ in n_rows)
        in_new = sum(1 for _, q in n_rows if q and q["ok"])
        L.append(f"{len(older)} loads, {len(n_rows)} compute buffers: {in_old} within goal with "
                 f"the log's build's graph, {in_new} with v0.5.0's.")
        L.append("")
        L.append("| load | build | buffer | log MiB | plan MiB (log's build) | error | plan MiB (v0.5.0 graph) | error |")
        L.append("|---|---|---|---|---|---|---|---|")
        for lid in sorted(older):
            for r, q in older[lid]:
                L.append(f"| {lid} | {results[lid].get('build') or ''} | "
                         f"{r['where']} {md_escape(r['buffer'])} | {fmt(r['logged'])} | "
                         f"{fmt(r['pred'])} | {fmt(r['err'], 1)} % | "
                         f"{fmt(q['pred']) if q else '-'} | "
                         f"{fmt(q['err'], 1) + ' %' if q and q['err'] is not None else '-'} |")
    else:
        L.append("No load.")
    L.append("")

    # worst misses
    L.append("## Largest misses below the log")
    L.append("")
    lows = sorted([r for r in all_rows if r["low"]], key=lambda r: r["err"] if r["err"] is not None else -1e9)
    if not lows:
        L.append("None.")
    else:
        L.append("| load | buffer | plan MiB | log MiB | error | build | mechanism seen |")
        L.append("|---|---|---|---|---|---|---|")
        lmap = {l["id"]: l for l in loads}
        for r in lows[:40]:
            l = lmap[r["load"]]
            L.append(f"| {r['load']} | {r['where']} {md_escape(r['buffer'])} | {fmt(r['pred'])} | "
                     f"{fmt(r['logged'])} | {fmt(r['err'], 1)} % | {md_escape(l.get('build') or '-')} "
                     f"| {md_escape(r['note'] or '')} |")
    L.append("")

    # refusals
    L.append("## Flags and models the CLI refused")
    L.append("")
    if not refusals:
        L.append("None.")
    else:
        L.append("| load | message |")
        L.append("|---|---|")
        for lid, msg in refusals:
            L.append(f"| {lid} | `{md_escape(msg)}` |")
    L.append("")

    # per-load notes
    L.append("## Loads scored")
    L.append("")
    L.append("| load | backend | build | year | model | program | compute | placement | notes |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for l in loads:
        if l["id"] not in results:
            continue
        inp = results[l["id"]]
        L.append(f"| {l['id']} | {l['backend']} | {md_escape(l.get('build') or '-')} | {l['year']} "
                 f"| `{inp['model']}` ({inp['how']}) | {inp['program']} | {inp['compute_model']} | "
                 f"{', '.join(l.get('placement_tags') or [])} | {md_escape('; '.join(inp['notes']))} |")
    L.append("")

    # rows
    L.append("## Every buffer")
    L.append("")
    L.append("✓ within goal, ✗ outside it, **low** below by more than 1 % and 16 MiB.")
    L.append("")
    L.append("| load | buffer | plan MiB | log MiB | error | | source | note |")
    L.append("|---|---|---|---|---|---|---|---|")
    lmap = {l["id"]: l for l in loads}
    for l in loads:
        for r in rows_of.get(l["id"], []):
            mark = "**low**" if r["low"] else ("✓" if r["ok"] else "✗")
            L.append(f"| {r['load']} | {r['where']} {md_escape(r['buffer'])} | {fmt(r['pred'])} | "
                     f"{fmt(r['logged'])} | {fmt(r['err'], 1) + ' %' if r['err'] is not None else 'n/a'} "
                     f"| {mark} | {l['source']['url']} | {md_escape(r['note'] or '')} |")
    L.append("")

    # skipped
    L.append("## Loads skipped")
    L.append("")
    reasons = {}
    for lid, why in skipped:
        reasons.setdefault(why, []).append(lid)
    L.append("| reason | loads |")
    L.append("|---|---|")
    for why in sorted(reasons, key=lambda w: -len(reasons[w])):
        L.append(f"| {md_escape(why)} | {len(reasons[why])}: {', '.join(reasons[why])} |")
    L.append("")
    text = "\n".join(L)
    # Written whole, then renamed over the target, so a reader never sees half a table.
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return s


# ----------------------------------------------------------------------------------------------

def parse_totals(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("Totals: "):
                return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}
    raise ValueError(f"{path}: no 'Totals:' line")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="path to headroom-cli")
    ap.add_argument("--out", required=True, help="markdown report to write")
    ap.add_argument("--baseline", help="a committed report; exit 1 when its totals are not met")
    ap.add_argument("--data", default=os.path.join(HERE, "published.json"))
    ap.add_argument("--resources", help="resources dir to copy (default: $HEADROOM_RESOURCES, "
                                        "else <cli>/../share/headroom, else the source tree's)")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 2))
    ap.add_argument("--keep-tmp", action="store_true")
    ap.add_argument("--only", help="comma-separated load ids (debugging)")
    a = ap.parse_args()

    cli_path = os.path.abspath(a.cli)
    baseline = parse_totals(a.baseline) if a.baseline else None   # read before --out is written
    res_src = a.resources or os.environ.get("HEADROOM_RESOURCES")
    if not res_src:
        cand = os.path.join(os.path.dirname(cli_path), "..", "share", "headroom")
        res_src = cand if os.path.isfile(os.path.join(cand, "catalog.json")) else os.path.join(REPO, "resources")
    data = json.load(open(a.data, encoding="utf-8"))
    loads = data["loads"]
    if a.only:
        keep = set(a.only.split(","))
        loads = [l for l in loads if l["id"] in keep]
    builtin = json.load(open(os.path.join(res_src, "catalog.json"), encoding="utf-8"))

    tmp = tempfile.mkdtemp(prefix="headroom-gpu-logs-")
    try:
        res = os.path.join(tmp, "resources")
        os.makedirs(res)
        for name in os.listdir(res_src):
            src = os.path.join(res_src, name)
            if os.path.isfile(src):
                shutil.copy(src, os.path.join(res, name))
        env = dict(os.environ, HEADROOM_RESOURCES=res)
        cli = Cli(cli_path, env)
        hw = ["--vram", "24GiB", "--ram", "64GiB"]
        p = cli.run(["--version"])
        cli_version = (p.stdout or p.stderr).strip()
        p = cli.run(["catalog", "--json"] + hw)
        if p.returncode != 0:
            sys.exit(f"headroom-cli catalog failed: {p.stderr.strip()}")
        listed = {m["id"] for m in json.loads(p.stdout)["models"]}
        catalog = [e for e in builtin["models"] if e["id"] in listed]
        probe_model = catalog[0]["id"]

        # backends the CLI accepts
        backend_ok, backend_notes = {}, []
        for b in sorted(set(BACKENDS.values())):
            q = cli.run(["plan", "--model", probe_model] + hw + ["--backend", b, "-c", "512", "--json"])
            backend_ok[b] = q.returncode == 0
            if q.returncode != 0:
                fb = BACKEND_FALLBACK.get(b)
                backend_notes.append(f"`--backend {b}` refused ({q.stderr.strip().splitlines()[0] if q.stderr.strip() else q.returncode}); "
                                     f"planned as {fb}")
        if not backend_notes:
            backend_notes.append("the CLI accepted `--backend` " +
                                 ", ".join(f"`{b}`" for b in sorted(backend_ok)) + " (no fallback)")
        h = cli.run(["plan", "--help"])
        m = re.search(r"--backend TEXT\s+(.*)", h.stdout or "")
        if m:
            listed_b = [b for b in backend_ok if re.search(r"\b" + b + r"\b", m.group(1))]
            missing = [b for b in sorted(backend_ok) if backend_ok[b] and b not in listed_b]
            if missing:
                backend_notes.append("`plan --help` does not list " +
                                     ", ".join(f"`{b}`" for b in missing) + " yet")

        gpu_cache = {}

        def gpu_memory(name):
            if not name:
                return None
            if name in gpu_cache:
                return gpu_cache[name]
            mem = None
            for cand in (name, re.sub(r"\s*\([^)]*\)\s*$", "", name).strip()):
                q = cli.run(["plan", "--model", probe_model, "--gpu", cand, "--ram", "64GiB",
                             "-c", "512", "--json"])
                if q.returncode == 0:
                    try:
                        mem = json.loads(q.stdout)["hardware"]["devices"][0]["total_bytes"]
                    except (ValueError, KeyError, IndexError):
                        mem = None
                    break
            gpu_cache[name] = mem
            return mem

        # inputs
        skipped, inputs = [], {}
        for l in loads:
            try:
                inp = build_inputs(l, catalog, gpu_memory)
            except Skip as e:
                skipped.append((l["id"], str(e)))
                continue
            b = inp["backend"]
            if b is None:
                skipped.append((l["id"], f"backend {l['backend']} not planned"))
                continue
            if not backend_ok.get(b, False):
                fb = BACKEND_FALLBACK.get(b)
                i = inp["args"].index("--backend")
                inp["args"][i + 1] = fb
                inp["notes"].append(f"--backend {b} refused: planned as {fb}")
            inputs[l["id"]] = inp

        # augmented catalog; drop entries the strict loader rejects
        extra = {lid: inp["entry"] for lid, inp in inputs.items() if inp["entry"]}
        while True:
            doc = copy.deepcopy(builtin)
            doc["models"] = builtin["models"] + list(extra.values())
            with open(os.path.join(res, "catalog.json"), "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
            q = cli.run(["catalog", "--json"] + hw)
            if q.returncode == 0:
                break
            m = re.search(r"catalog entry '([^']+)': ([^\n]*)", q.stderr)
            bad = [lid for lid, e in extra.items() if m and e["id"] == m.group(1)]
            if not bad:
                sys.exit(f"augmented catalog rejected: {q.stderr.strip()}")
            for lid in bad:
                skipped.append((lid, f"catalog schema rejected the synthesized entry: {m.group(2)}"))
                del extra[lid]
                del inputs[lid]

        # plans
        refusals, results, rows_of = [], {}, {}

        def one(lid):
            inp = inputs[lid]
            q = cli.run(inp["args"])
            # The same plan on v0.5.0's own graph, to show what the log's build changes.
            snap = None
            if "--llama-build" in inp["args"]:
                i = inp["args"].index("--llama-build")
                snap = cli.run(inp["args"][:i] + inp["args"][i + 2:])
            return lid, q, snap

        lmap = {l["id"]: l for l in loads}
        older_graph = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            for lid, q, snap in ex.map(one, list(inputs)):
                inp = inputs[lid]
                if q.returncode != 0:
                    msg = (q.stderr.strip() or q.stdout.strip()).splitlines()
                    msg = msg[0] if msg else f"exit {q.returncode}"
                    refusals.append((lid, msg))
                    skipped.append((lid, f"CLI refused (exit {q.returncode}): {msg}"))
                    continue
                try:
                    plan = json.loads(q.stdout)
                except ValueError:
                    skipped.append((lid, "CLI printed no JSON"))
                    continue
                rows, err = compare(lmap[lid], inp, plan)
                if err:
                    skipped.append((lid, err))
                    continue
                inp["compute_model"] = (plan.get("resolved") or {}).get("compute", "?")
                results[lid] = inp
                rows_of[lid] = rows
                if snap is not None and snap.returncode == 0 and \
                        any(n.startswith("llama.cpp build") and ": priced with" in n
                            for n in plan.get("notes") or []):
                    snap_rows, serr = compare(lmap[lid], inp, json.loads(snap.stdout))
                    if not serr:
                        now = {(r["cat"], r["where"]): r for r in snap_rows}
                        older_graph[lid] = [(r, now.get((r["cat"], r["where"])))
                                            for r in rows if r["cat"] == "compute"]

        order = {l["id"]: i for i, l in enumerate(loads)}
        skipped.sort(key=lambda x: order.get(x[0], 0))
        refusals.sort(key=lambda x: order.get(x[0], 0))
        s = write_report(a.out, {"loads": loads, "results": results, "skipped": skipped,
                                 "older_graph": older_graph,
                                 "refusals": refusals, "rows_of": rows_of,
                                 "cli_version": cli_version, "backend_notes": backend_notes})
    finally:
        if a.keep_tmp:
            print(f"temporary dir kept: {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"gpu_logs: {s['buffers']} buffers, {s['within_goal']} within goal, {s['low']} low")
    if baseline is not None:
        worse = []
        for k in ("compute_within_goal", "kv_exact"):
            if k in baseline and s[k] < baseline[k]:
                worse.append(f"{k} {s[k]} < baseline {baseline[k]}")
        if worse:
            print("gpu_logs: below baseline: " + "; ".join(worse), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
