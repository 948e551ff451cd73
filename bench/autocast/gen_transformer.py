#!/usr/bin/env python3
"""Generates a transformer training step written to mpt's training-graph
contract, with every layer norm, softmax, GELU and the cross-entropy loss
decomposed into linalg.generic ops, as frontends emit them.

Per layer (one head, S tokens, model width D, MLP width F):
  n1 = layer_norm(x)                   (mean/variance reductions, rsqrt)
  p  = softmax(n1 Wq (n1 Wk)^T * c + mask)   mask: -1e9 above the diagonal
  x1 = x + (p n1 Wv) Wo
  n2 = layer_norm(x1)
  x2 = x1 + gelu_tanh(n2 W1) W2
then logits = x_L Wout, loss = mean(cross_entropy(logits, y)).

Trained: Wout and every layer's W1, W2 (SGD, p - lr * g); the attention
weights are parameters without a gradient (frozen). The backward pass is
exact for Wout and for the last layer's W1, W2; below the last layer the
output gradient is propagated through the residual connection only (the
MLP and attention branches' input gradients are not added), so for more
than one layer the lower layers' gradients are a synthetic workload of the
right shape and op mix, meant for timing the compiler, not for training.
"""
import argparse


class Emitter:
    def __init__(self):
        self.lines = []
        self.counter = 0

    def fresh(self, hint="v"):
        self.counter += 1
        return f"%{hint}{self.counter}"

    def emit(self, text):
        self.lines.append("  " + text)


def t(shape, elt="f32"):
    return "tensor<" + "x".join(str(s) for s in shape) + ("x" if shape else "") + elt + ">"


class Builder:
    def __init__(self, em):
        self.em = em

    def empty(self, shape):
        v = self.em.fresh("e")
        self.em.emit(f"{v} = tensor.empty() : {t(shape)}")
        return v

    def zeros(self, shape):
        e = self.empty(shape)
        v = self.em.fresh("z")
        self.em.emit(f"{v} = linalg.fill ins(%zero : f32) outs({e} : {t(shape)}) -> {t(shape)}")
        return v

    def fill(self, shape, scalar):
        e = self.empty(shape)
        v = self.em.fresh("f")
        self.em.emit(f"{v} = linalg.fill ins({scalar} : f32) outs({e} : {t(shape)}) -> {t(shape)}")
        return v

    def matmul(self, a, b, m, k, n):
        acc = self.zeros([m, n])
        v = self.em.fresh("mm")
        self.em.emit(f"{v} = linalg.matmul ins({a}, {b} : {t([m, k])}, {t([k, n])}) "
                     f"outs({acc} : {t([m, n])}) -> {t([m, n])}")
        return v

    def transpose(self, a, m, n):
        e = self.empty([n, m])
        v = self.em.fresh("tr")
        self.em.emit(f"{v} = linalg.transpose ins({a} : {t([m, n])}) outs({e} : {t([n, m])}) permutation = [1, 0]")
        return v

    def generic(self, ins, out_shape, maps, iters, body, init=None, hint="g"):
        """ins: list of (value, shape, map); body: lines using %a0.. and %acc."""
        outs = init if init is not None else self.empty(out_shape)
        v = self.em.fresh(hint)
        in_vals = ", ".join(x[0] for x in ins)
        in_types = ", ".join(t(x[1]) for x in ins)
        maps_text = ", ".join([x[2] for x in ins] + [maps])
        iters_text = ", ".join(f'"{i}"' for i in iters)
        args = ", ".join([f"%a{i}: f32" for i in range(len(ins))] + ["%acc: f32"])
        self.em.emit(f"{v} = linalg.generic {{indexing_maps = [{maps_text}], iterator_types = [{iters_text}]}}")
        self.em.emit(f"    ins({in_vals} : {in_types}) outs({outs} : {t(out_shape)}) {{")
        self.em.emit(f"^bb0({args}):")
        for line in body:
            self.em.emit("  " + line)
        self.em.emit(f"}} -> {t(out_shape)}")
        return v

    # Elementwise over [m, n] with operands given as (value, kind) where kind
    # is "mn" (full), "m" (row vector), "n" (column vector), "s" (scalar).
    def ew(self, operands, m, n, body, hint="ew"):
        maps = {"mn": "#id", "m": "#row", "n": "#col", "s": "#scal"}
        shapes = {"mn": [m, n], "m": [m], "n": [n], "s": []}
        ins = [(v, shapes[k], maps[k]) for v, k in operands]
        return self.generic(ins, [m, n], "#id", ["parallel", "parallel"], body, hint=hint)

    def row_reduce(self, a, m, n, body, init_scalar="%zero", hint="red"):
        init = self.fill([m], init_scalar)
        return self.generic([(a, [m, n], "#id")], [m], "#row", ["parallel", "reduction"], body, init=init, hint=hint)

    def layer_norm(self, x, s, d):
        total = self.row_reduce(x, s, d, ["%r = arith.addf %a0, %acc : f32", "linalg.yield %r : f32"], hint="sum")
        centred = self.ew([(x, "mn"), (total, "m")], s, d,
                          ["%m = arith.mulf %a1, %inv_d : f32", "%r = arith.subf %a0, %m : f32", "linalg.yield %r : f32"], hint="xc")
        sq = self.row_reduce(centred, s, d, ["%q = arith.mulf %a0, %a0 : f32", "%r = arith.addf %q, %acc : f32",
                                             "linalg.yield %r : f32"], hint="var")
        normed = self.ew([(centred, "mn"), (sq, "m")], s, d,
                         ["%v = arith.mulf %a1, %inv_d : f32", "%ve = arith.addf %v, %eps : f32",
                          "%rs = math.rsqrt %ve : f32", "%r = arith.mulf %a0, %rs : f32", "linalg.yield %r : f32"], hint="ln")
        return normed


GELU = ["%u3 = arith.mulf %a0, %a0 : f32", "%u3b = arith.mulf %u3, %a0 : f32",
        "%in1 = arith.mulf %u3b, %gelu_c : f32", "%in2 = arith.addf %a0, %in1 : f32",
        "%in3 = arith.mulf %in2, %sqrt2pi : f32", "%th = math.tanh %in3 : f32",
        "%op = arith.addf %th, %one : f32", "%hx = arith.mulf %a0, %half : f32",
        "%r = arith.mulf %hx, %op : f32", "linalg.yield %r : f32"]

# d/du of gelu_tanh(u), times the incoming gradient a1.
GELU_GRAD = ["%u2 = arith.mulf %a0, %a0 : f32", "%u3 = arith.mulf %u2, %a0 : f32",
             "%in1 = arith.mulf %u3, %gelu_c : f32", "%in2 = arith.addf %a0, %in1 : f32",
             "%in3 = arith.mulf %in2, %sqrt2pi : f32", "%th = math.tanh %in3 : f32",
             "%op = arith.addf %th, %one : f32", "%left = arith.mulf %op, %half : f32",
             "%th2 = arith.mulf %th, %th : f32", "%sech2 = arith.subf %one, %th2 : f32",
             "%c3 = arith.mulf %u2, %gelu_3c : f32", "%dc = arith.addf %c3, %one : f32",
             "%dd = arith.mulf %dc, %sqrt2pi : f32", "%rt = arith.mulf %sech2, %dd : f32",
             "%rt2 = arith.mulf %rt, %a0 : f32", "%right = arith.mulf %rt2, %half : f32",
             "%dg = arith.addf %left, %right : f32", "%r = arith.mulf %dg, %a1 : f32",
             "linalg.yield %r : f32"]


def emit_driver(args, results, loss_shape):
    """A @main that fills the arguments with deterministic patterns, runs the
    step and prints the loss, then each trained parameter before and after
    the step (printMemrefF32, 2-D)."""
    lines = ["", "func.func private @printMemrefF32(memref<*xf32>)", "",
             "func.func @main() {"]
    names = {}
    for k, (name, shape, role) in enumerate(args):
        v = f"%in{k}"
        if role == "hyperparameter":
            lines.append(f"  {v} = arith.constant dense<0.5> : {t(shape)}")
        elif name == "%y":
            e = f"%e_in{k}"
            lines.append(f"  {e} = tensor.empty() : {t(shape)}")
            lines.append(f"  {v} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>], "
                         f"iterator_types = [\"parallel\", \"parallel\"]}} outs({e} : {t(shape)}) {{")
            lines.append("  ^bb0(%o: f32):")
            lines.append("    %i = linalg.index 0 : index")
            lines.append("    %j = linalg.index 1 : index")
            lines.append(f"    %nc = arith.constant {shape[1]} : index")
            lines.append("    %cls = arith.remui %i, %nc : index")
            lines.append("    %hit = arith.cmpi eq, %cls, %j : index")
            lines.append("    %one = arith.constant 1.0 : f32")
            lines.append("    %zero = arith.constant 0.0 : f32")
            lines.append("    %r = arith.select %hit, %one, %zero : f32")
            lines.append("    linalg.yield %r : f32")
            lines.append(f"  }} -> {t(shape)}")
        else:
            # 0.5 * sin(0.37 * index + phase) / sqrt(rows): weights scaled
            # by their fan-in, so activations stay of order one.
            e = f"%e_in{k}"
            lines.append(f"  {e} = tensor.empty() : {t(shape)}")
            lines.append(f"  {v} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>], "
                         f"iterator_types = [\"parallel\", \"parallel\"]}} outs({e} : {t(shape)}) {{")
            lines.append("  ^bb0(%o: f32):")
            lines.append("    %i = linalg.index 0 : index")
            lines.append("    %j = linalg.index 1 : index")
            lines.append(f"    %nc = arith.constant {shape[1]} : index")
            lines.append("    %row = arith.muli %i, %nc : index")
            lines.append("    %idx = arith.addi %row, %j : index")
            lines.append("    %ii = arith.index_cast %idx : index to i32")
            lines.append("    %fi = arith.sitofp %ii : i32 to f32")
            lines.append("    %a = arith.constant 0.37 : f32")
            lines.append(f"    %ph = arith.constant {0.3 * k + 0.1!r} : f32")
            scale = 0.5 if role == "data" else 0.5 / shape[0] ** 0.5
            lines.append(f"    %sc = arith.constant {scale!r} : f32")
            lines.append("    %x1 = arith.mulf %fi, %a : f32")
            lines.append("    %x2 = arith.addf %x1, %ph : f32")
            lines.append("    %sn = math.sin %x2 : f32")
            lines.append("    %r = arith.mulf %sn, %sc : f32")
            lines.append("    linalg.yield %r : f32")
            lines.append(f"  }} -> {t(shape)}")
        names[name] = v
    arg_vals = ", ".join(names[a[0]] for a in args)
    arg_types = ", ".join(t(a[1]) for a in args)
    res_types = ", ".join([t(loss_shape)] + [t(r[1]) for r in results])
    res_vals = ["%loss"] + [f"%out{i}" for i in range(len(results))]
    lines.append(f"  {', '.join(res_vals)} = call @transformer_step({arg_vals}) : ({arg_types}) -> ({res_types})")

    def print2d(value, shape):
        dyn = "tensor<?x?xf32>"
        c = f"{value}_d"
        m = f"{value}_m"
        u = f"{value}_u"
        lines.append(f"  {c} = tensor.cast {value} : {t(shape)} to {dyn}")
        lines.append(f"  {m} = bufferization.to_buffer {c} : {dyn} to memref<?x?xf32>")
        lines.append(f"  {u} = memref.cast {m} : memref<?x?xf32> to memref<*xf32>")
        lines.append(f"  call @printMemrefF32({u}) : (memref<*xf32>) -> ()")

    lines.append("  %loss2 = tensor.expand_shape %loss [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>")
    print2d("%loss2", [1, 1])
    for i, (_, shape, arg) in enumerate(results):
        print2d(names[args[arg][0]], shape)
        print2d(f"%out{i}", shape)
    lines.append("  return")
    lines.append("}")
    return lines


def generate(layers, s, d, f, v, driver=False):
    em = Emitter()
    b = Builder(em)
    args = []
    for l in range(layers):
        for name, shape in [("wq", [d, d]), ("wk", [d, d]), ("wv", [d, d]), ("wo", [d, d]),
                            ("w1", [d, f]), ("w2", [f, d])]:
            args.append((f"%{name}_{l}", shape, "param"))
    args.append(("%wout", [d, v], "param"))
    args += [("%x", [s, d], "data"), ("%y", [s, v], "data"), ("%lr", [], "hyperparameter")]
    arg_index = {a[0]: i for i, a in enumerate(args)}

    em.emit("%zero = arith.constant 0.0 : f32")
    em.emit("%one = arith.constant 1.0 : f32")
    em.emit("%half = arith.constant 0.5 : f32")
    em.emit("%ninf = arith.constant 0xFF800000 : f32")
    em.emit("%neg_big = arith.constant -1.0e9 : f32")
    em.emit(f"%inv_d = arith.constant {1.0 / d!r} : f32")
    em.emit(f"%inv_s = arith.constant {1.0 / s!r} : f32")
    em.emit(f"%scale = arith.constant {d ** -0.5!r} : f32")
    em.emit("%eps = arith.constant 1.0e-5 : f32")
    em.emit("%gelu_c = arith.constant 0.044715 : f32")
    em.emit("%gelu_3c = arith.constant 0.134145 : f32")
    em.emit("%sqrt2pi = arith.constant 0.7978845608 : f32")

    # The causal mask, built from indices: 0 on and below the diagonal,
    # -1e9 above it (the value that overflows f16).
    mask_e = b.empty([s, s])
    em.emit(f"%mask = linalg.generic {{indexing_maps = [#id], iterator_types = [\"parallel\", \"parallel\"]}}")
    em.emit(f"    outs({mask_e} : {t([s, s])}) {{")
    em.emit("^bb0(%o: f32):")
    em.emit("  %i = linalg.index 0 : index")
    em.emit("  %j = linalg.index 1 : index")
    em.emit("  %above = arith.cmpi ugt, %j, %i : index")
    em.emit("  %m = arith.select %above, %neg_big, %zero : f32")
    em.emit("  linalg.yield %m : f32")
    em.emit(f"}} -> {t([s, s])}")

    x = "%x"
    saved = []
    for l in range(layers):
        em.emit(f"// ---- layer {l} ----")
        n1 = b.layer_norm(x, s, d)
        q = b.matmul(n1, f"%wq_{l}", s, d, d)
        k = b.matmul(n1, f"%wk_{l}", s, d, d)
        val = b.matmul(n1, f"%wv_{l}", s, d, d)
        kt = b.transpose(k, s, d)
        scores = b.matmul(q, kt, s, d, s)
        masked = b.ew([(scores, "mn"), ("%mask", "mn")], s, s,
                      ["%sc = arith.mulf %a0, %scale : f32", "%r = arith.addf %sc, %a1 : f32", "linalg.yield %r : f32"],
                      hint="masked")
        rmax = b.row_reduce(masked, s, s, ["%r = arith.maximumf %a0, %acc : f32", "linalg.yield %r : f32"],
                            init_scalar="%ninf", hint="rmax")
        ex = b.ew([(masked, "mn"), (rmax, "m")], s, s,
                  ["%dd = arith.subf %a0, %a1 : f32", "%r = math.exp %dd : f32", "linalg.yield %r : f32"], hint="exp")
        den = b.row_reduce(ex, s, s, ["%r = arith.addf %a0, %acc : f32", "linalg.yield %r : f32"], hint="den")
        probs = b.ew([(ex, "mn"), (den, "m")], s, s, ["%r = arith.divf %a0, %a1 : f32", "linalg.yield %r : f32"],
                     hint="probs")
        ctx = b.matmul(probs, val, s, s, d)
        proj = b.matmul(ctx, f"%wo_{l}", s, d, d)
        x1 = b.ew([(x, "mn"), (proj, "mn")], s, d, ["%r = arith.addf %a0, %a1 : f32", "linalg.yield %r : f32"],
                  hint="res")
        n2 = b.layer_norm(x1, s, d)
        u = b.matmul(n2, f"%w1_{l}", s, d, f)
        g = b.ew([(u, "mn")], s, f, GELU, hint="gelu")
        m = b.matmul(g, f"%w2_{l}", s, f, d)
        x2 = b.ew([(x1, "mn"), (m, "mn")], s, d, ["%r = arith.addf %a0, %a1 : f32", "linalg.yield %r : f32"],
                  hint="res")
        saved.append((n2, u, g))
        x = x2

    em.emit("// ---- head and cross-entropy loss ----")
    logits = b.matmul(x, "%wout", s, d, v)
    lmax = b.row_reduce(logits, s, v, ["%r = arith.maximumf %a0, %acc : f32", "linalg.yield %r : f32"],
                        init_scalar="%ninf", hint="lmax")
    lexp = b.ew([(logits, "mn"), (lmax, "m")], s, v,
                ["%dd = arith.subf %a0, %a1 : f32", "%r = math.exp %dd : f32", "linalg.yield %r : f32"], hint="lexp")
    lsum = b.row_reduce(lexp, s, v, ["%r = arith.addf %a0, %acc : f32", "linalg.yield %r : f32"], hint="lsum")
    ylog = b.generic([("%y", [s, v], "#id"), (logits, [s, v], "#id")], [s], "#row", ["parallel", "reduction"],
                     ["%p = arith.mulf %a0, %a1 : f32", "%r = arith.addf %p, %acc : f32", "linalg.yield %r : f32"],
                     init=b.zeros([s]), hint="ylog")
    per = b.generic([(lsum, [s], "#id1"), (lmax, [s], "#id1"), (ylog, [s], "#id1")], [s], "#id1", ["parallel"],
                    ["%lg = math.log %a0 : f32", "%lse = arith.addf %lg, %a1 : f32", "%r = arith.subf %lse, %a2 : f32",
                     "linalg.yield %r : f32"], hint="per")
    tot = b.generic([(per, [s], "#id1")], [], "#sc1", ["reduction"],
                    ["%r = arith.addf %a0, %acc : f32", "linalg.yield %r : f32"], init=b.zeros([]), hint="tot")
    loss = b.generic([(tot, [], "#s0")], [], "#s0", [], ["%r = arith.mulf %a0, %inv_s : f32", "linalg.yield %r : f32"],
                     hint="loss")

    em.emit("// ---- backward ----")
    em.emit(f"%seed = mpt.grad_seed {loss} : tensor<f32>")
    dlogits = b.ew([(lexp, "mn"), (lsum, "m"), ("%y", "mn"), ("%seed", "s")], s, v,
                   ["%p = arith.divf %a0, %a1 : f32", "%dd = arith.subf %p, %a2 : f32",
                    "%gs = arith.mulf %a3, %inv_s : f32", "%r = arith.mulf %dd, %gs : f32", "linalg.yield %r : f32"],
                   hint="dlogits")
    grads = {}
    grads["%wout"] = b.matmul(b.transpose(x, s, d), dlogits, d, s, v)
    dx = b.matmul(dlogits, b.transpose("%wout", d, v), s, v, d)
    for l in reversed(range(layers)):
        n2, u, g = saved[l]
        em.emit(f"// ---- layer {l} backward (MLP weights) ----")
        grads[f"%w2_{l}"] = b.matmul(b.transpose(g, s, f), dx, f, s, d)
        dg = b.matmul(dx, b.transpose(f"%w2_{l}", f, d), s, d, f)
        du = b.ew([(u, "mn"), (dg, "mn")], s, f, GELU_GRAD, hint="du")
        grads[f"%w1_{l}"] = b.matmul(b.transpose(n2, s, d), du, d, s, f)

    em.emit("// ---- update: p - lr * g ----")
    results = []
    for name, shape, role in args:
        if name not in grads:
            continue
        gm = em.fresh("grad")
        em.emit(f"{gm} = mpt.gradient {grads[name]} : {t(shape)}")
        upd = b.ew([(name, "mn"), (gm, "mn"), ("%lr", "s")], shape[0], shape[1],
                   ["%st = arith.mulf %a2, %a1 : f32", "%r = arith.subf %a0, %st : f32", "linalg.yield %r : f32"],
                   hint="new")
        results.append((upd, shape, arg_index[name]))

    header = ["#id = affine_map<(i, j) -> (i, j)>", "#row = affine_map<(i, j) -> (i)>",
              "#col = affine_map<(i, j) -> (j)>", "#scal = affine_map<(i, j) -> ()>",
              "#id1 = affine_map<(i) -> (i)>", "#sc1 = affine_map<(i) -> ()>", "#s0 = affine_map<() -> ()>", ""]
    sig_args = ",\n    ".join(f"{n}: {t(sh)} {{mpt.role = \"{r}\"}}" for n, sh, r in args)
    sig_res = ",\n        ".join(["tensor<f32> {mpt.role = \"loss\"}"] +
                                 [f"{t(sh)} {{mpt.updates = {i} : i64}}" for _, sh, i in results])
    out = header + [f"func.func @transformer_step(\n    {sig_args})\n    -> ({sig_res}) {{"]
    out += em.lines
    ret_vals = ", ".join([loss] + [r[0] for r in results])
    ret_types = ", ".join(["tensor<f32>"] + [t(r[1]) for r in results])
    out.append(f"  return {ret_vals} : {ret_types}")
    out.append("}")
    if driver:
        out += emit_driver(args, results, loss_shape=[])
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--mlp", type=int, default=64)
    parser.add_argument("--vocab", type=int, default=8)
    parser.add_argument("--driver", action="store_true",
                        help="also emit a @main that runs the step on deterministic inputs and prints "
                             "the loss and each trained parameter before and after")
    parser.add_argument("-o", "--output", default="-")
    a = parser.parse_args()
    text = generate(a.layers, a.seq, a.dim, a.mlp, a.vocab, a.driver)
    if a.output == "-":
        print(text, end="")
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
