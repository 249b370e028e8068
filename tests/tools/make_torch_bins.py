#!/usr/bin/python3
"""pytorch_model.bin files for the converter tests, written by torch.save itself (needs torch).

  make_torch_bins.py marian MODEL.safetensors ZIP_BIN LEGACY_BIN
      The safetensors checkpoint's state dict in both serializations, shaped as transformers saves a
      MarianMT model: the tied embeddings (model.shared, encoder/decoder embed_tokens, lm_head) share one
      storage, and final_logits_bias is a view at an offset into a larger storage.
  make_torch_bins.py dtypes ZIP_BIN LEGACY_BIN
      {"half": F16 [1, -2.5, 65504], "brain": BF16 [1, -2.5] (a view at offset 1), "float": F32 [[1, 2], [3, 4]]}.
"""
import collections
import json
import struct
import sys

import torch

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    sd = collections.OrderedDict()
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = bytearray(body[begin:end])
        t = torch.frombuffer(raw, dtype=DTYPES[entry["dtype"]]) if raw else torch.zeros(0)
        sd[name] = t.reshape(entry["shape"]).clone()
    return sd


def marian(sd):
    out = collections.OrderedDict()
    shared = sd["model.shared.weight"]
    for name, t in sd.items():
        if name == "final_logits_bias":
            padded = torch.cat([torch.zeros(7), t.flatten()])
            out[name] = padded[7:].view(1, -1)  # storage offset 7, storage larger than the tensor
        else:
            out[name] = t
    for name in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"):
        out[name] = shared
    out._metadata = collections.OrderedDict([("", {"version": 1})])
    return out


def dtypes():
    brain = torch.tensor([7.0, 1.0, -2.5], dtype=torch.bfloat16)
    return collections.OrderedDict([
        ("half", torch.tensor([1.0, -2.5, 65504.0], dtype=torch.float16)),
        ("brain", brain[1:]),
        ("float", torch.tensor([[1.0, 2.0], [3.0, 4.0]])),
    ])


def main(argv):
    if argv[1] == "marian":
        sd, outputs = marian(read_safetensors(argv[2])), argv[3:5]
    else:
        sd, outputs = dtypes(), argv[2:4]
    torch.save(sd, outputs[0])
    torch.save(sd, outputs[1], _use_new_zipfile_serialization=False)


if __name__ == "__main__":
    main(sys.argv)
