#!/usr/bin/python3
"""Convert a Hugging Face `pytorch_model.bin` (a pickled state dict) into `model.safetensors`.

  /usr/bin/python3 tools/bin_to_safetensors.py opus-mt-en-de/pytorch_model.bin
  nmt convert --from hf-marian opus-mt-en-de -o models/en-de

Older OPUS-MT checkpoints on the Hugging Face hub ship only `pytorch_model.bin`; `nmt convert` reads
safetensors only (a pickle can run code, safetensors cannot). This script needs torch (Debian's
python3 with torch is enough; the `safetensors` package is not needed: the format is written by hand).

Tensors that share storage (tied embeddings: model.shared / encoder and decoder embed_tokens / lm_head)
are written once, under the first name; `nmt convert` knows they are tied. Writes OUT.tmp and renames it,
so a failed run leaves no partial file. Only load checkpoints you trust: unpickling runs code (the script
uses torch.load(weights_only=True) where the installed torch supports it).
"""
import argparse
import json
import os
import struct
import sys

import torch

DTYPES = {
    torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
    torch.bool: "BOOL",
}


def load_state_dict(path):
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except TypeError:  # torch < 1.13 has no weights_only
        obj = torch.load(path, map_location="cpu")
    if isinstance(obj, dict) and "state_dict" in obj and isinstance(obj["state_dict"], dict):
        obj = obj["state_dict"]
    if not isinstance(obj, dict) or not all(isinstance(v, torch.Tensor) for v in obj.values()):
        sys.exit(f"{path}: not a state dict of tensors")
    return obj


def tensor_bytes(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)       # numpy has no bfloat16: same bits
    return t.numpy().tobytes()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin", help="pytorch_model.bin")
    ap.add_argument("-o", "--output", help="output file (default: model.safetensors next to the input)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing output file")
    args = ap.parse_args()
    if sys.byteorder != "little":
        sys.exit("safetensors is little-endian; this script assumes a little-endian machine")
    out = args.output or os.path.join(os.path.dirname(os.path.abspath(args.bin)), "model.safetensors")
    if os.path.exists(out) and not args.force:
        sys.exit(f"{out}: exists (use --force to overwrite)")

    state = load_state_dict(args.bin)
    header, blobs, offset, seen, skipped = {"__metadata__": {"format": "pt"}}, [], 0, {}, []
    for name, t in state.items():
        if t.dtype not in DTYPES:
            sys.exit(f"{args.bin}: tensor '{name}': dtype {t.dtype} has no safetensors equivalent")
        key = (t.untyped_storage().data_ptr() if hasattr(t, "untyped_storage") else t.storage().data_ptr(),
               t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.dtype)
        if t.numel() > 0 and key in seen:
            skipped.append(f"{name} (= {seen[key]})")
            continue
        seen[key] = name
        data = tensor_bytes(t)
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, out)
    print(f"{out}: {len(header) - 1} tensors, {offset} bytes of data"
          + (f"; tied duplicates not written: {', '.join(skipped)}" if skipped else ""))


if __name__ == "__main__":
    main()
