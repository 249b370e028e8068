#!/usr/bin/python3
"""The expected bits of tests/unit's Marian-rounding tests, recomputed from an exact transcription of
marian-decoder's CPU arithmetic (GCC, AVX-512 build): each float32 operation computed in rationals and rounded
once to float32. Reads the tests' inputs and expectations, prints every value it computes differently.

  python3 tools/marian_rounding.py    # test_ssru.cc's cell updates, test_kernels.cc's LayerNorm and softmax rows
"""
import math
import os
import re
import struct
import sys
from fractions import Fraction as F


def f32(x):
    """x (a Fraction) rounded to the nearest float32, ties to even (normal range; no overflow)."""
    x = F(x)
    if x == 0:
        return F(0)
    sign, a = (-1 if x < 0 else 1), abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while F(2) ** e > a:
        e -= 1
    while F(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -126)
    q = a / F(2) ** (e - 23)
    n, r = math.floor(q), q - math.floor(q)
    if r > F(1, 2) or (r == F(1, 2) and n % 2 == 1):
        n += 1
    return sign * n * F(2) ** (e - 23)


def lit(text):  # a float literal as the compiler rounds it
    return f32(F(text))


def fma(a, b, c):
    return f32(a * b + c)


def bits(v):
    return struct.unpack("<I", struct.pack("<f", float(v)))[0]


# Cephes' expf as Marian's vectorised code computes it (core/marian_math.h), and its e / (1 + e) sigmoid.
EXP_CLAMP, LOG2E = lit("88.3762626647949"), lit("1.44269504088896341")
LN2_HI, LN2_LO = lit("0.693359375"), lit("-2.12194440e-4")
POLY = [lit(p) for p in ("1.9875691500e-4", "1.3981999507e-3", "8.3334519073e-3", "4.1665795894e-2",
                         "1.6666665459e-1", "5.0000001201e-1")]


def marian_exp(x):
    x = max(min(x, EXP_CLAMP), -EXP_CLAMP)
    n = math.floor(fma(x, LOG2E, F(1, 2)))
    r = fma(F(-n), LN2_LO, fma(F(-n), LN2_HI, x))
    y = fma(r, POLY[0], POLY[1])
    for p in POLY[2:]:
        y = fma(y, r, p)
    y = f32(fma(y, f32(r * r), r) + 1)
    return F(0) if n + 127 <= 0 else f32(y * F(2) ** n)  # the exponent bits: 2^-127 is 0


def ssru_cell(gate, candidate, c_prev):
    if gate >= 80:
        f = F(1)
    else:
        e = marian_exp(gate)
        f = f32(e / f32(e + 1))
    return fma(f32(1 - f), candidate, f32(f * c_prev))


def sqrt32(v):
    """Correctly rounded float32 square root."""
    r = f32(F(math.sqrt(float(v))))
    near = [F(struct.unpack("<f", struct.pack("<I", bits(r) + k))[0]) for k in (-1, 0, 1)]
    return min(near, key=lambda c: abs(c * c - v))


def marian_sum(values, term):
    """Marian's LayerNorm sum (core/kernels.cc): 16 lanes, folded 8 (+ an 8-wide tail), 4, 2, 1, then the rest."""
    lanes, i = [F(0)] * 16, 0
    while i + 16 <= len(values):
        lanes = [term(lanes[l], values[i + l]) for l in range(16)]
        i += 16
    half = [f32(lanes[l + 8] + lanes[l]) for l in range(8)]
    if len(values) - i >= 8:
        half = [term(half[l], values[i + l]) for l in range(8)]
        i += 8
    quarter = [f32(half[l + 4] + half[l]) for l in range(4)]
    s = f32(f32(quarter[0] + quarter[2]) + f32(quarter[1] + quarter[3]))
    for v in values[i:]:
        s = term(s, v)
    return s


def layer_norm(x, gamma, beta, eps):
    inv_d = f32(F(1) / len(x))
    mean = f32(marian_sum(x, lambda acc, v: f32(acc + v)) * inv_d)
    squares = marian_sum(x, lambda acc, v: fma(f32(v - mean), f32(v - mean), acc))
    inv_sigma = f32(1 / sqrt32(fma(squares, inv_d, eps)))
    return [fma(f32(v - mean), f32(g * inv_sigma), b) for v, g, b in zip(x, gamma, beta)]


def softmax(x):
    """Marian's Softmax (core/marian_math.h) of a row of a multiple of 8 or 4 values: lane sums, added in
    lane order, each exp divided by the total."""
    lanes = 8 if len(x) % 8 == 0 else 4
    top = max(x)
    e = [marian_exp(f32(v - top)) for v in x]
    sums = [F(0)] * lanes
    for i, v in enumerate(e):
        sums[i % lanes] = f32(sums[i % lanes] + v)
    total = F(0)
    for s in sums:
        total = f32(total + s)
    return [f32(v / total) for v in e]


TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "unit")
NUMBER = r"-?[0-9.]+(?:e-?[0-9]+)?"


def test_body(file, title):
    with open(os.path.join(TESTS, file), encoding="utf-8") as f:
        text = f.read()
    start = text.index(title)
    return text[start:text.index("\n}\n", start)]


def initializer(body, name):
    """The text between the braces of `const std::vector<...> name = {...};` in body."""
    return re.search(r"\b" + name + r" = \{(.*?)\};", body, re.S).group(1)


def hex_words(body, name):
    """The 0x...u literals of vector `name` in body."""
    return [int(w, 16) for w in re.findall(r"0x([0-9a-f]+)u", initializer(body, name))]


def literals(body, name):
    """The float literals of vector `name` in body, as the compiler reads them."""
    return [lit(v) for v in re.findall(NUMBER + r"(?=f)", initializer(body, name))]


def main():
    wrong = total = 0
    body = test_body("test_ssru.cc", "an SSRU cell update rounds as Marian's")
    for g, c, p, want in re.findall(r"\{(" + NUMBER + r")f, (" + NUMBER + r")f, (" + NUMBER + r")f, 0x([0-9a-f]+)u\}",
                                    body):
        got = bits(ssru_cell(lit(g), lit(c), lit(p)))
        total += 1
        if got != int(want, 16):
            wrong += 1
            print(f"test_ssru.cc: gate {g}: 0x{got:08x}u, the test says 0x{want}u")
    body = test_body("test_kernels.cc", "layer_norm rounds as marian-decoder's")
    wants = hex_words(body, "want")
    ys = layer_norm(literals(body, "x"), literals(body, "gamma"), literals(body, "beta"), lit("1e-6"))
    for i, (y, want) in enumerate(zip(ys, wants)):
        total += 1
        if bits(y) != want:
            wrong += 1
            print(f"test_kernels.cc: value {i}: 0x{bits(y):08x}u, the test says 0x{want:08x}u")
    body = test_body("test_kernels.cc", "marian_softmax rounds as marian-decoder's")
    for lanes in ("8", "4"):
        for i, (y, want) in enumerate(zip(softmax(literals(body, "x" + lanes)), hex_words(body, "want" + lanes))):
            total += 1
            if bits(y) != want:
                wrong += 1
                print(f"test_kernels.cc: softmax x{lanes} value {i}: 0x{bits(y):08x}u, the test says 0x{want:08x}u")
    print(f"{total - wrong} of {total} expected values recomputed alike")
    return 1 if wrong or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
