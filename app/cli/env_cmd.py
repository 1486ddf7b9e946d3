"""``favakit env``: what is installed and which backends favakit would use, as JSON."""

from __future__ import annotations

import argparse
import json
import platform
import sys
from typing import Any

__all__ = ["configure", "environment_report"]


def _extras() -> dict[str, dict[str, Any]]:
    """Each extra of the installed favakit with its packages' installed versions."""
    from importlib.metadata import PackageNotFoundError, metadata, requires, version

    from packaging.requirements import Requirement

    try:
        reqs = [Requirement(r) for r in requires("favakit") or []]
        declared = metadata("favakit").get_all("Provides-Extra") or []
    except PackageNotFoundError:
        return {}
    extras: dict[str, dict[str, Any]] = {}
    for req in reqs:
        if req.marker is None:
            continue
        if req.name == "favakit":  # `all` refers to other extras
            continue
        for extra in (e for e in declared if req.marker.evaluate({"extra": e})):
            try:
                found: str | None = version(req.name)
            except PackageNotFoundError:
                found = None
            entry = extras.setdefault(extra, {"installed": True, "packages": {}})
            entry["packages"][req.name] = found
            entry["installed"] = entry["installed"] and found is not None
    return extras


def _torch_report() -> dict[str, Any]:
    from favakit.deps import is_available

    if not is_available("torch"):
        return {"installed": False, "cuda": False, "devices": []}
    import warnings

    with warnings.catch_warnings():  # torch warns when numpy is absent; not our concern here
        warnings.simplefilter("ignore")
        import torch

    cuda = bool(torch.cuda.is_available())
    devices = []
    if cuda:
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            devices.append(
                {"index": i, "name": props.name, "memory_gib": round(props.total_memory / 2**30, 1)}
            )
    return {
        "installed": True,
        "version": torch.__version__,
        "cuda": cuda,
        "cuda_version": torch.version.cuda,
        "bf16": bool(cuda and torch.cuda.is_bf16_supported()),
        "devices": devices,
    }


def _judges_report(cuda: bool) -> dict[str, Any]:
    """The judges ``favakit verify`` and ``favakit edit`` pick where none is named, and why:
    which bases are installed, and whether the Qwen judge and the in-process editor would run
    in native bf16."""
    from favakit.deps import cpu_has_bf16
    from favakit.inference.checker import auto_checker
    from favakit.inference.factory import auto_gate, auto_judge, judge_in_bf16, qwen_base_ready

    checker = auto_checker()
    bases = {"mpnet": checker == "mpnet", "Qwen": qwen_base_ready()}
    gate, verify, judge_bf16 = auto_gate(), auto_judge(cuda), judge_in_bf16(cuda)
    where = "a CUDA GPU" if cuda else "the CPU"
    if gate != "cascade":
        missing = " and ".join(name for name, ok in bases.items() if not ok)
        named = "mpnet" if checker == "mpnet" else "MiniLM"
        why = f"no {missing} base installed (`make setup`): the {named} checker alone"
    elif verify == "cascade":
        why = f"both bases installed, and bf16 native on {where}: the cascade"
    else:
        why = (
            f"bf16 is not native on {where}: there the cascade's Qwen judge runs in fp32, under "
            f"1 claim/s, so verify uses the {checker} checker; edit's gate stays the cascade"
        )
    return {
        "cpu_bf16": cpu_has_bf16(),
        "mpnet_base": bases["mpnet"],
        "qwen_base": bases["Qwen"],
        "qwen_judge_bf16": judge_bf16,
        "editor_bf16": judge_bf16,  # the in-process editor's dtype auto goes by the same test
        "verify": "cascade" if verify == "cascade" else checker,
        "edit_gate": gate,
        "why": why,
    }


def environment_report(probe_torch: bool = True) -> dict[str, Any]:
    """Installed extras, versions, GPUs and the backends ``auto`` would pick."""
    from favakit import __version__
    from favakit.deps import is_available

    torch_info = (
        _torch_report() if probe_torch else {"installed": is_available("torch"), "probed": False}
    )
    cuda = bool(torch_info.get("cuda"))
    if is_available("vllm") and cuda:
        generation = "vllm"
    elif torch_info.get("installed") and is_available("transformers"):
        generation = "transformers"
    else:
        generation = "openai-http (no local model backend installed)"
    if is_available("faiss"):
        gpu_faiss = cuda and is_available("faiss") and _faiss_has_gpu()
        dense_index = "faiss-gpu" if gpu_faiss else "faiss-cpu"
    elif is_available("numpy"):
        dense_index = "numpy exact search (install favakit[retrieval] for FAISS)"
    else:
        dense_index = None
    return {
        "favakit": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "extras": _extras(),
        "torch": torch_info,
        "backends": {
            "generation": generation,
            "dense_index": dense_index,
            "bm25": "bm25s" if is_available("bm25s") else None,
            "quantization": "bitsandbytes" if (cuda and is_available("bitsandbytes")) else None,
        },
        "judges": _judges_report(cuda),  # with --no-torch, as on the CPU
    }


def _faiss_has_gpu() -> bool:
    import faiss

    return hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0


def _run(args: argparse.Namespace) -> int:
    print(json.dumps(environment_report(probe_torch=not args.no_torch), indent=2))
    return 0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-torch", action="store_true", help="do not import torch to probe CUDA (faster)"
    )
    parser.set_defaults(func=_run)
