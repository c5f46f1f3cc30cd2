"""The bad-input catalogue's cases for autograd.Function, Tensor.register_hook and
retain_grad, create_graph=True through a node without a double backward,
autograd.functional and the engine switches (engine_flags.py).  tests/bad_input_cases.py
(where Case is) adds them to CASES; tests/test_bad_input.py runs them."""
from bad_input_cases import C

# a Function whose backward is given as BACKWARD (one line)
FN = ("class Fn(pdt.autograd.Function):\n"
      "    @staticmethod\n    def forward(ctx, x, k):\n        return x * k\n"
      "    @staticmethod\n    def backward(ctx, g):\n        return BACKWARD\n"
      "x = pdt.ones(2, 3, requires_grad=True)\n")

# the cases inside a forward grad level
FWAD = "fw = pdt.autograd.forward_ad\nwith fw.dual_level():\n"

AUTOGRAD_CASES = [
    # autograd.set_multithreading_enabled / _force_original_view_tracking (engine_flags.py)
    C("set_multithreading_enabled-int", "pdt.autograd.set_multithreading_enabled(0)",
      "TypeError", r"set_multithreading_enabled\(\): argument 'mode' \(position 1\) must be "
      r"bool, not int"),
    C("force_original_view_tracking-str", "pdt.autograd._force_original_view_tracking('on')",
      "TypeError", r"_force_original_view_tracking\(\): argument 'mode' \(position 1\) must "
      r"be bool, not str"),
    # ---- func transforms
    C("func-grad-vector-output", "pdt.func.grad(lambda x: x * 2)(pdt.ones(2))", "RuntimeError",
      r"Expected f\(\*args\) to return a scalar Tensor, got tensor with 1 dims"),
    C("func-grad-argnums-range", "pdt.func.grad(lambda x: x.sum(), argnums=1)(pdt.ones(2))",
      "RuntimeError", r"Got argnum=1, but only 1 positional inputs"),
    C("func-grad-argnums-type", "pdt.func.grad(lambda x: x.sum(), argnums=[0])(pdt.ones(2))",
      "RuntimeError", r"argnums must be int or Tuple\[int, \.\.\.\], got: <class 'list'>"),
    C("func-grad-input-not-tensor", "pdt.func.grad(lambda x: x)(1.0)", "ValueError",
      r"Thing passed to transform API must be Tensor, got <class 'float'> \(in argument 0"),
    C("func-grad-aux-not-tensor",
      "pdt.func.grad(lambda x: (x.sum(), 1), has_aux=True)(pdt.ones(2))", "RuntimeError",
      r"Expected tensors, got unsupported type <class 'int'> \(in the aux output"),
    C("func-jacrev-integer-output", "pdt.func.jacrev(lambda x: x.long())(pdt.ones(2))",
      "RuntimeError", r"All outputs of f must be floating-point or complex Tensors, got "
      r"Tensor with dtype pydevtensor.int64"),
    C("func-stack_module_state-empty", "pdt.func.stack_module_state([])", "RuntimeError",
      r"stack_module_state: Expected at least one model, got 0\."),
    C("func-jvp-primals-not-tuple", "pdt.func.jvp(lambda x: x, [pdt.ones(2)], [pdt.ones(2)])",
      "RuntimeError", r"jvp\(f, primals, tangents\): Expected primals to be a tuple"),
    C("func-jacfwd-integer-input", "pdt.func.jacfwd(lambda x: x * 2)(pdt.tensor([1, 2]))",
      "ValueError", r"Expected primal to be floating point or complex, but got: "
      r"pydevtensor.int64"),
    C("func-grad-aux-not-pair", "pdt.func.grad(lambda x: x.sum(), has_aux=True)(pdt.ones(2))",
      "RuntimeError", r"should be a tuple: \(output, aux\) if has_aux is True"),
    C("func-vjp-cotangent-structure",
      "pdt.func.vjp(lambda x: x * 2, pdt.ones(2))[1]((pdt.ones(2), pdt.ones(2)))",
      "RuntimeError", r"pytree structure of cotangents to be the same"),
    C("func-vjp-cotangent-shape", "pdt.func.vjp(lambda x: x * 2, pdt.ones(2))[1](pdt.ones(3))",
      "RuntimeError", r"a cotangent must be a Tensor of its output's shape \(2,\), got \(3,\)"),
    C("func-jacrev-chunk-size", "pdt.func.jacrev(lambda x: x, chunk_size=0)", "ValueError",
      r"`chunk_size` should be greater than 0"),
    C("func-jacfwd-randomness", "pdt.func.jacfwd(lambda x: x, randomness='any')", "RuntimeError",
      r"randomness are 'error', 'different', or 'same'. Got any"),
    C("func-jacrev-output-not-tensor", "pdt.func.jacrev(lambda x: 3)(pdt.ones(2))",
      "RuntimeError", r"Expected f\(\*primals\) to return only tensors"),
    C("func-vmap-batch-sizes", "pdt.vmap(lambda a, b: a + b)(pdt.ones(2, 3), pdt.ones(3, 3))",
      "ValueError", r"same size in the mapped dimension, got sizes \[2, 3\]"),
    C("func-vmap-in-dim-range", "pdt.vmap(lambda a: a, in_dims=2)(pdt.ones(2, 3))",
      "ValueError", r"Got in_dim=2 for some input, .* dimensionality 2 \(shape \(2, 3\)"),
    C("func-vmap-no-batched-input", "pdt.vmap(lambda a: a, in_dims=(None,))(pdt.ones(2))",
      "ValueError", r"Expected at least one Tensor to vmap over"),
    C("func-vmap-in-dims-structure", "pdt.vmap(lambda a, b: a, in_dims=(0,))(pdt.ones(2), "
      "pdt.ones(2))", "ValueError", r"in_dims is not compatible with the structure of"),
    C("func-vmap-returns-a-number", "pdt.vmap(lambda a: 1.0)(pdt.ones(2))", "ValueError",
      r"must only return Tensors, got type <class 'float'>"),
    C("func-vmap-out-dim-none-batched", "pdt.vmap(lambda a: a, out_dims=None)(pdt.arange(2.))",
      "ValueError", r"can not return a BatchedTensor when out_dim is None"),
    C("func-vmap-randomness", "pdt.vmap(lambda a: a, randomness='any')", "RuntimeError",
      r"randomness are 'error', 'different', or 'same'. Got any"),
    C("func-vmap-random-op", "pdt.vmap(lambda a: a + pdt.rand(()))(pdt.ones(2))",
      "RuntimeError", r"called random operation while in randomness error mode"),
    C("func-vmap-chunk-size", "pdt.vmap(lambda a: a, chunk_size=0)", "ValueError",
      r"chunk_size should be None or greater than 0. \(got 0\)"),
    # ---- autograd.Function
    C("gradcheck-no-input-requires-grad",
      "pdt.autograd.gradcheck(lambda t: t * 2, (pdt.ones(2, dtype=pdt.float64),))",
      "ValueError", r"at least one input tensor to require gradient"),
    C("gradcheck-returns-a-number",
      "pdt.autograd.gradcheck(lambda t: 3, (pdt.ones(2, dtype=pdt.float64, "
      "requires_grad=True),))", "TypeError", r"must return a Tensor or a tuple of Tensors"),
    C("Function-gradient-count", FN.replace("BACKWARD", "g") + "Fn.apply(x, 2.0).sum().backward()",
      "RuntimeError", r"function FnBackward returned an incorrect number of gradients "
      r"\(expected 2, got 1\)"),
    C("Function-gradient-shape", FN.replace("BACKWARD", "g[0], None")
      + "Fn.apply(x, 2.0).sum().backward()", "RuntimeError",
      r"function FnBackward returned an invalid gradient at index 0 - got \[3\] but expected "
      r"shape compatible with \[2, 3\]"),
    C("Function-gradient-for-a-number", FN.replace("BACKWARD", "g, g")
      + "Fn.apply(x, 2.0).sum().backward()", "RuntimeError",
      r"FnBackward returned a gradient different than None at position 1, but the "
      r"corresponding forward input was not a Tensor"),
    C("Function-gradient-not-a-tensor", FN.replace("BACKWARD", "1.0, None")
      + "Fn.apply(x, 2.0).sum().backward()", "TypeError",
      r"FnBackward returned a float as the gradient at position 0"),
    C("Function-no-backward", "class Fn(pdt.autograd.Function):\n    @staticmethod\n"
      "    def forward(ctx, x):\n        return x * 2\n"
      "Fn.apply(pdt.ones(1, requires_grad=True)).sum().backward()", "NotImplementedError",
      r"You must implement either the backward or vjp method"),
    C("Function-keyword-only", "class Fn(pdt.autograd.Function):\n    @staticmethod\n"
      "    def forward(ctx, x, *, k):\n        return x * k\n"
      "Fn.apply(pdt.ones(1), k=2.0)", "TypeError",
      r"Fn.forward\(\): the inputs of Function.apply are positional: keywords may name "
      r"the parameters after the positional arguments in order only \(got \['k'\]\)"),
    C("Function-keyword-after-a-gap", "class Fn(pdt.autograd.Function):\n    @staticmethod\n"
      "    def forward(ctx, x, k=1.0, m=2.0):\n        return x * k\n"
      "Fn.apply(pdt.ones(1), m=2.0)", "TypeError",
      r"keywords may name the parameters after the positional arguments in order only "
      r"\(got \['m'\], 'k' missing\)"),
    C("Function-backward-and-vjp", "class Fn(pdt.autograd.Function):\n    @staticmethod\n"
      "    def forward(ctx, x):\n        return x * 2\n    @staticmethod\n"
      "    def backward(ctx, g):\n        return g\n    @staticmethod\n"
      "    def vjp(ctx, g):\n        return g\n"
      "Fn.apply(pdt.ones(1, requires_grad=True)).sum().backward()", "RuntimeError",
      r"Fn: implementing both 'backward' and 'vjp' for a custom Function is not allowed"),
    C("Function-save-a-number", "class Fn(pdt.autograd.Function):\n    @staticmethod\n"
      "    def forward(ctx, x):\n        ctx.save_for_backward(x, 3)\n        return x * 2\n"
      "Fn.apply(pdt.ones(1))", "TypeError",
      r"save_for_backward can only save variables, but argument 1 is of type int"),
    C("Function-dirty-leaf", "class Fn(pdt.autograd.Function):\n    @staticmethod\n"
      "    def forward(ctx, x):\n        ctx.mark_dirty(x)\n        return x.add_(1)\n"
      "Fn.apply(pdt.ones(1, requires_grad=True))", "RuntimeError",
      r"a leaf Variable that requires grad has been used in an in-place operation"),
    C("once_differentiable-twice",
      "from pydevtensor.autograd.function import once_differentiable\n"
      "class Fn(pdt.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
      "        return x * 2\n    @staticmethod\n    @once_differentiable\n"
      "    def backward(ctx, g):\n        return g * 2\n"
      "x = pdt.ones(1, requires_grad=True)\n"
      "v = pdt.ones((), requires_grad=True)\n"
      "(g,) = pdt.autograd.grad(Fn.apply(x).sum(), x, v, create_graph=True)\n"
      "g.sum().backward()", "RuntimeError",
      r"differentiate twice a function that was marked with @once_differentiable "
      r"\(FnBackward\)"),
    # ---- hooks
    C("register_hook-not-callable", "pdt.ones(1, requires_grad=True).register_hook(3)",
      "TypeError", r"register_hook\(\): hook must be callable, got int"),
    C("register_hook-no-grad", "pdt.ones(1).register_hook(lambda g: g)", "RuntimeError",
      r"cannot register a hook on a tensor that doesn't require gradient"),
    C("register_hook-wrong-shape", "x = pdt.ones(2, requires_grad=True)\ny = x * 2\n"
      "y.register_hook(lambda g: g[:1])\ny.sum().backward()", "RuntimeError",
      r"returned a gradient of shape \(1,\) for a tensor of shape \(2,\)"),
    C("register_hook-returns-a-number", "x = pdt.ones(2, requires_grad=True)\n"
      "x.register_hook(lambda g: 1.0)\n(x * 2).sum().backward()", "TypeError",
      r"a tensor hook must return a Tensor or None, got float"),
    C("grad-input-a-number", "x = pdt.ones(2, requires_grad=True)\n"
      "pdt.autograd.grad((x * 2).sum(), [x, 3.0])", "RuntimeError",
      r"grad\(\): all inputs have to be Tensors, but input 1 is a float"),
    C("get_gradient_edge-no-grad", "pdt.autograd.graph.get_gradient_edge(pdt.ones(1))",
      "RuntimeError", r"gradient edge for a Tensor that does not require gradients"),
    C("get_gradient_edge-not-a-tensor", "pdt.autograd.graph.get_gradient_edge([1.0])",
      "TypeError", r"get_gradient_edge\(\): expected a Tensor, got list"),
    C("increment_version-not-a-tensor", "pdt.autograd.graph.increment_version(3)",
      "RuntimeError", r"increment_version\(\): expected a Tensor or a sequence of Tensors, "
      r"got int"),
    C("saved_tensors_hooks-not-callable",
      "pdt.autograd.graph.saved_tensors_hooks(lambda t: t, None)", "TypeError",
      r"saved_tensors_hooks\(\): unpack_hook must be callable, got NoneType"),
    C("saved_tensors_hooks-unpack-a-number", "x = pdt.ones(2, requires_grad=True)\n"
      "with pdt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 1):\n"
      "    y = (x * x).sum()\ny.backward()", "TypeError",
      r"unpack_hook expected to be a Tensor but got result of type int"),
    C("saved_tensors_hooks-disabled",
      "with pdt.autograd.graph.disable_saved_tensors_hooks('no hooks'):\n"
      "    with pdt.autograd.graph.save_on_cpu():\n        pass", "RuntimeError",
      r"no hooks"),
    C("node-register_hook-not-callable",
      "(pdt.ones(1, requires_grad=True) * 2).grad_fn.register_hook(3)", "TypeError",
      r"register_hook\(\): hook must be callable, got int"),
    C("node-register_prehook-count", "x = pdt.ones(2, requires_grad=True)\ny = x * 2\n"
      "y.grad_fn.register_prehook(lambda go: (go[0], go[0]))\ny.sum().backward()",
      "RuntimeError", r"pre hook of MulBackward0 returned 2 gradients for 1 outputs"),
    C("retain_grad-no-grad", "pdt.ones(1).retain_grad()", "RuntimeError",
      r"can't retain_grad on Tensor that has requires_grad=False"),
    C("register_full_backward_hook-not-callable",
      "pdt.nn.Linear(1, 1).register_full_backward_hook(3)", "TypeError",
      r"register_full_backward_hook\(\): hook must be callable, got int"),
    C("register_full_backward_hook-count", "lin = pdt.nn.Linear(2, 1)\n"
      "lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))\n"
      "lin(pdt.ones(1, 2, requires_grad=True)).sum().backward()", "RuntimeError",
      r"backward hook of Linear returned 2 gradients for 1 inputs"),
    C("register_backward_hook-count", "relu = pdt.nn.ReLU()\n"
      "relu.register_backward_hook(lambda m, gi, go: (gi[0], gi[0]))\n"
      "relu(pdt.ones(2, requires_grad=True) * 1).sum().backward()", "RuntimeError",
      r"hook of ReluBackward0 returned 2 gradients for 1 inputs"),
    C("register_post_accumulate_grad_hook-not-callable",
      "pdt.ones(1, requires_grad=True).register_post_accumulate_grad_hook(2)", "TypeError",
      r"register_post_accumulate_grad_hook\(\): hook must be callable, got int"),
    C("register_full_backward_pre_hook-not-callable",
      "pdt.nn.Linear(1, 1).register_full_backward_pre_hook(None)", "TypeError",
      r"register_full_backward_pre_hook\(\): hook must be callable, got NoneType"),
    C("register_full_backward_pre_hook-count", "lin = pdt.nn.Linear(2, 1)\n"
      "lin.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))\n"
      "lin(pdt.ones(1, 2, requires_grad=True)).sum().backward()", "RuntimeError",
      r"backward pre-hook of Linear returned 2 gradients for 1 outputs"),
    # ---- create_graph through a gradient without a derivative of its own
    C("create_graph-scatter-prod-zeros", "x = pdt.zeros(3, requires_grad=True)\n"
      "out = pdt.ones(1).scatter_reduce(0, pdt.zeros(3, dtype=pdt.int64), x, 'prod')\n"
      "(g,) = pdt.autograd.grad(out.sum(), x, create_graph=True)\n"
      "g.sum().backward()", "RuntimeError",
      r"scatter_reduce\(\): Double backward is unsupported for src when more than one zero "
      r"in src is scattered to the same position \(as in PyTorch\)"),
    # ---- autograd.functional
    C("jacobian-list-of-numbers", "pdt.autograd.functional.jacobian(lambda x: x, [1.0])",
      "TypeError", r"inputs given to the function must be either a Tensor or a tuple of "
      r"Tensors but the given inputs has type list"),
    C("jacobian-tuple-with-number", "pdt.autograd.functional.jacobian(lambda x: x, "
      "(pdt.ones(1), 1.0))", "TypeError", r"inputs given to the function must be either a "
      r"Tensor or a tuple of Tensors but the value at index 1 has type float"),
    C("jacobian-forward-mode", "pdt.autograd.functional.jacobian(lambda x: x, pdt.ones(1), "
      "strategy='forward-mode')", "NotImplementedError",
      r"forward-AD or forward-over-reverse Hessian is only implemented for `vectorize=True`"),
    C("jacobian-strategy", "pdt.autograd.functional.jacobian(lambda x: x, pdt.ones(1), "
      "strategy='fwd')", "AssertionError",
      r'Expected strategy to be either "forward-mode" or "reverse-mode"'),
    C("jacobian-forward-mode-create_graph", "pdt.autograd.functional.jacobian(lambda x: x, "
      "pdt.ones(1), create_graph=True, vectorize=True, strategy='forward-mode')",
      "NotImplementedError", r'`create_graph=True` and `strategy="forward-mode"`'),
    C("hessian-vector-output", "pdt.autograd.functional.hessian(lambda x: x * 2, pdt.ones(2))",
      "RuntimeError", r"should return a single Tensor with a single element"),
    C("vjp-no-v", "pdt.autograd.functional.vjp(lambda x: x * 2, pdt.ones(2))",
      "RuntimeError", r"v can only be None if the output of the user-provided function is "
      r"a single Tensor with a single element"),
    C("jvp-v-count", "pdt.autograd.functional.jvp(lambda x: x * 2, pdt.ones(2), "
      "(pdt.ones(2), pdt.ones(2)))", "RuntimeError", r"v has 2 elements but there are 1 inputs"),
    C("hvp-vector-output", "pdt.autograd.functional.hvp(lambda x: x * 2, pdt.ones(2), "
      "pdt.ones(2))", "RuntimeError", r"vhp/hvp should return a single Tensor"),
    C("vhp-v-not-a-tensor", "pdt.autograd.functional.vhp(lambda x: x.sum(), pdt.ones(2), "
      "[1.0, 2.0])", "TypeError", r"The v given to the function must be either a Tensor"),
    # ---- autograd.forward_ad (a level entered by a case is left by its with block)
    C("forward_ad-make_dual-no-level", "pdt.autograd.forward_ad.make_dual(t, t)",
      "RuntimeError", r"no level exists, make sure to enter_dual_level\(\) first"),
    C("forward_ad-make_dual-size", FWAD + "    fw.make_dual(t, pdt.ones(2))", "RuntimeError",
      r"Tensor is of size \[2, 3\] while the given forward gradient is of size \[2\]\."),
    C("forward_ad-make_dual-dtype", FWAD + "    fw.make_dual(t, t.double())", "RuntimeError",
      r"the primal is pydevtensor.float32 on cpu, the tangent pydevtensor.float64 on cpu"),
    C("forward_ad-make_dual-integer", FWAD + "    fw.make_dual(ti, t)", "ValueError",
      r"Expected primal to be floating point or complex, but got: pydevtensor.int32"),
    C("forward_ad-make_dual-not-a-tensor", FWAD + "    fw.make_dual(t, 1.0)", "TypeError",
      r"make_dual\(\): argument 'tangent' must be Tensor, not float"),
    C("forward_ad-make_dual-twice", FWAD + "    fw.make_dual(fw.make_dual(t, t), t)",
      "RuntimeError", r"already has a forward gradient at the same level 0"),
    C("forward_ad-unpack_dual-level", FWAD + "    fw.unpack_dual(t, level=3)", "RuntimeError",
      r"Invalid level given to _fw_primal"),
    C("forward_ad-unpack_dual-not-a-tensor", "pdt.autograd.forward_ad.unpack_dual([1.0])",
      "TypeError", r"_unpack_dual\(\): argument 'dual' must be Tensor, not list"),
    C("forward_ad-enter_dual_level-nested", FWAD + "    fw.enter_dual_level()",
      "RuntimeError", r"Nested forward mode AD is not supported at the moment"),
    C("forward_ad-exit_dual_level-no-level", "pdt.autograd.forward_ad.exit_dual_level()",
      "RuntimeError", r"Dual level must be a positive number"),
    C("forward_ad-exit_dual_level-not-last", FWAD + "    fw.exit_dual_level(level=1)",
      "RuntimeError", r"was not the last one that was created"),
    C("forward_ad-dual_level-level-type", FWAD + "    fw.exit_dual_level(level='0')",
      "TypeError", r"exit_dual_level\(\): level must be an int or None, got str"),
]
