"""The bad-input catalogue's cases for the random-number state and generators
(pydevtensor/random.py, _generator.py, _cuda_random.py), bernoulli, poisson,
Tensor.random_, the gamma family (lgamma, digamma, polygamma),
pydevtensor.distributions, quasirandom.SobolEngine and signal.windows.
tests/bad_input_cases.py (where Case is) adds them to CASES; tests/test_bad_input.py
runs them.  A refused state leaves the seed as it was,
so these share their children."""
from bad_input_cases import C

RANDOM_CASES = [
    C("get_rng_state-arg", "pdt.get_rng_state(1)", "TypeError",
      r"get_rng_state\(\) takes 0 positional arguments but 1 was given"),
    C("set_rng_state-float", "pdt.set_rng_state(pdt.zeros(16))", "TypeError",
      r"set_rng_state\(\): RNG state must be a uint8 tensor .*float32"),
    C("set_rng_state-size", "pdt.set_rng_state(pdt.zeros(3, dtype=pdt.uint8))", "RuntimeError",
      r"RNG state is wrong size: expected shape \(16,\) .* got \(3,\)"),
    C("set_rng_state-int64", "pdt.set_rng_state(pdt.full((16,), 3, dtype=pdt.int64))",
      "TypeError", r"RNG state must be a uint8 tensor \(a ByteTensor.*pydevtensor.int64"),
    C("Generator-set_state-int32", "pdt.Generator().set_state(pdt.zeros(16, dtype=pdt.int32))",
      "TypeError", r"Generator.set_state\(\): RNG state must be a uint8 tensor .*int32"),
    C("set_rng_state-list", "pdt.set_rng_state([0] * 16)", "TypeError",
      r"the state must be a Tensor .*got list"),
    C("seed-arg", "pdt.seed(3)", "TypeError", r"seed\(\) takes 0 positional arguments"),
    C("Generator-manual_seed-str", "pdt.Generator().manual_seed('1')", "TypeError",
      r"Generator.manual_seed\(\): seed must be an int, got str"),
    C("Generator-device-bad", "pdt.Generator('xpu')", "ValueError",
      r"invalid device string 'xpu'"),
    C("Generator-device-missing", "pdt.Generator('cuda:63')", "pydevtensor.DeviceError",
      r"Generator\(\): cuda:63 unknown device"),
    C("rand-generator-int", "pdt.rand(2, generator=3)", "TypeError",
      r"rand\(\): generator must be a pydevtensor.Generator or None, got int"),
    C("randint-generator-str", "pdt.randint(5, (2,), generator='g')", "TypeError",
      r"randint\(\): generator must be a pydevtensor.Generator or None, got str"),
    C("uniform_-generator", "t.uniform_(generator=1.5)", "TypeError",
      r"uniform_\(\): generator must be a pydevtensor.Generator or None, got float"),
    C("fork_rng-devices", "with pdt.random.fork_rng(devices=3):\n    pass", "TypeError",
      r"fork_rng\(\): devices must be an iterable of device indices, got int"),
    C("cuda-get_rng_state-cpu", "pdt.cuda.get_rng_state('cpu')", "ValueError",
      r"cuda.get_rng_state\(\): expected a CUDA device, got cpu"),
    C("cuda-set_rng_state_all-int", "pdt.cuda.set_rng_state_all(3)", "TypeError",
      r"new_states must be a sequence of tensors, got int"),
    C("bernoulli-p-out-of-range", "pdt.bernoulli(pdt.tensor([0.5, 1.5]))", "RuntimeError",
      r"bernoulli\(\): Expected p_in >= 0 && p_in <= 1 .*\(2,\).*on cpu"),
    C("bernoulli-int", "pdt.bernoulli(ti)", "TypeError",
      r"bernoulli\(\): expected a floating-point tensor of probabilities, got "
      r"pydevtensor.int32"),
    C("bernoulli-tensor-p", "pdt.bernoulli(t, pdt.ones(2, 3) / 2)", "TypeError",
      r"bernoulli\(\): p must be a float .*a 0-d tensor is taken as its value\), got a "
      r"Tensor of shape \(2, 3\)"),
    C("bernoulli_-shape", "pdt.zeros(2, 3).bernoulli_(pdt.ones(4) / 2)", "RuntimeError",
      r"bernoulli_\(\): p of shape \(4,\) does not broadcast to self's shape \(2, 3\)"),
    C("random_-from-to", "pdt.zeros(3).random_(4, 2)", "RuntimeError",
      r"random_ expects 'from' to be less than 'to', but got from=4 >= to=2"),
    C("random_-float-bound", "pdt.zeros(3, dtype=pdt.float16).random_(0, 2 ** 40)",
      "RuntimeError", r"random_\(\): \[from, to\) = \[0, 1099511627776\) on a "
      r"pydevtensor.float16 tensor: .*the value 1099511627775 \(high - 1\) is out of bounds "
      r"for float16 "
      r"\(its finite range is \[-65504, 65504\]; randint\(0, 1099511627776\) on cpu\)"),
    C("randint-float16-bound", "pdt.randint(0, 2 ** 30, (2,), dtype=pdt.float16)", "ValueError",
      r"randint: the value 1073741823 \(high - 1\) is out of bounds for float16"),
    C("poisson-negative", "pdt.poisson(pdt.tensor([1.0, -2.0]))", "RuntimeError",
      r"poisson\(\): invalid Poisson rate, .*shape \(2,\).*on cpu"),
    C("poisson-int", "pdt.poisson(ti)", "TypeError",
      r"poisson\(\): expected a floating-point tensor of rates, got pydevtensor.int32"),
    C("binomial-negative-count", "pdt.binomial(pdt.tensor([3.0, -1.0]), pdt.tensor([0.5]))",
      "RuntimeError", r"binomial\(\): invalid count, expected whole numbers >= 0 .*shape "
      r"\(2,\).*on cpu"),
    C("binomial-fractional-count", "pdt.binomial(pdt.tensor([2.5]), pdt.tensor([0.5]))",
      "RuntimeError", r"binomial\(\): invalid count"),
    C("binomial-prob-above-1", "pdt.binomial(pdt.tensor([3.0]), pdt.tensor([1.5]))",
      "RuntimeError", r"binomial\(\): invalid prob, expected probabilities in \[0, 1\]"),
    C("binomial-prob-nan", "pdt.binomial(pdt.tensor([3.0]), pdt.tensor([float('nan')]))",
      "RuntimeError", r"binomial\(\): invalid prob"),
    C("binomial-int-count", "pdt.binomial(pdt.tensor([3]), pdt.tensor([0.5]))", "TypeError",
      r"binomial\(\): count must be a floating-point tensor, got pydevtensor.int64"),
    C("binomial-mixed-dtypes", "pdt.binomial(pdt.tensor([3.0]), pdt.tensor([0.5]).double())",
      "TypeError", r"count and prob must have the same dtype, got pydevtensor.float32 and "
      r"pydevtensor.float64"),
    C("binomial-list", "pdt.binomial([3.0], pdt.tensor([0.5]))", "TypeError",
      r"binomial\(\): argument 'count' must be a Tensor, got list"),
    C("binomial-shapes", "pdt.binomial(pdt.ones(3), pdt.full((2,), 0.5))", "RuntimeError",
      r"broadcast"),
    C("lgamma-list", "pdt.lgamma([1.0])", "TypeError",
      r"lgamma\(\): argument 'input' must be a Tensor, got list"),
    C("digamma-str", "pdt.digamma('x')", "TypeError",
      r"digamma\(\): argument 'input' must be a Tensor, got str"),
    C("polygamma-huge-n", "pdt.polygamma(2 ** 31, t)", "RuntimeError",
      r"polygamma\(n, x\) supports n up to 170, got n=2147483648: n! overflows float64"),
    C("polygamma-negative-n", "pdt.polygamma(-1, t)", "RuntimeError",
      r"polygamma\(n, x\) does not support negative n, got n=-1"),
    C("polygamma-float-n", "pdt.polygamma(1.5, t)", "TypeError",
      r"polygamma\(\): argument 'n' must be int, got float"),
    C("mvlgamma-p-zero", "pdt.mvlgamma(t, 0)", "RuntimeError",
      r"mvlgamma\(\): p has to be greater than or equal to 1, got 0 \(input .*float32 of "
      r"shape \(2, 3\) on cpu\)"),
    C("special-multigammaln-float-p", "pdt.special.multigammaln(t, 1.5)", "TypeError",
      r"mvlgamma\(\): argument 'p' must be int, got float"),
    C("special-gammaln-list", "pdt.special.gammaln([2.0])", "TypeError",
      r"lgamma\(\): argument 'input' must be a Tensor, got list"),
    C("distributions-normal-scale", "pdt.distributions.Normal(0.0, pdt.tensor([1.0, -1.0]))",
      "ValueError", r"Expected parameter scale \(Tensor of shape \(2,\)\) of distribution "
      r"Normal\(.*\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-bernoulli-both", "pdt.distributions.Bernoulli(probs=pdt.tensor(0.5), "
      "logits=pdt.tensor(0.0))", "ValueError",
      r"Either `probs` or `logits` must be specified, but not both"),
    C("distributions-categorical-sample-int",
      "pdt.distributions.Categorical(pdt.ones(3)).sample(5)", "TypeError",
      r"sample_shape must be a tuple of ints \(a Size\), e.g. \(5,\), got int"),
    C("distributions-multinomial-count",
      "pdt.distributions.Multinomial(2.5, pdt.ones(3))", "TypeError",
      r"Multinomial\(\): total_count must be an int, got float"),
    C("distributions-log_prob-support",
      "pdt.distributions.Poisson(pdt.tensor([1.0])).log_prob(pdt.tensor([-1.0]))", "ValueError",
      r"Poisson.log_prob\(\): the value argument must be within the support"),
    C("distributions-dependent-check",
      "pdt.distributions.constraints.dependent.check(pdt.ones(2))", "ValueError",
      r"Cannot determine validity of dependent constraint"),
    C("distributions-real_vector-0d",
      "pdt.distributions.constraints.real_vector.check(pdt.tensor(1.0))", "ValueError",
      r"Expected value.dim\(\) >= 1 but got 0"),
    C("distributions-kl-pair",
      "pdt.distributions.kl_divergence(pdt.distributions.Normal(0.0, 1.0), "
      "pdt.distributions.Poisson(1.0))", "NotImplementedError",
      r"kl_divergence\(\): no KL divergence registered for Normal and Poisson \(registered "
      r"with p a Normal: q a Beta, ContinuousBernoulli, Exponential, ExponentialFamily, "
      r"Gamma, Gumbel, Laplace, Normal, Pareto, Uniform; ExponentialFamily's takes two of "
      r"one class; add one with register_kl\)"),
    C("distributions-expfamily-entropy-no-carrier",
      "pdt.distributions.ExponentialFamily.entropy(pdt.distributions.Beta(2.0, 3.0))",
      "NotImplementedError", r"Beta does not give its mean carrier measure "
      r"\(_mean_carrier_measure\), so its entropy has no Bregman form"),
    C("distributions-laplace-scale", "pdt.distributions.Laplace(0.0, -1.0)", "ValueError",
      r"Expected parameter scale \(Tensor of shape \(\)\) of distribution Laplace\(.*\) to "
      r"satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-geometric-zero", "pdt.distributions.Geometric(pdt.tensor([0.0, 0.5]))",
      "ValueError", r"Expected parameter probs \(Tensor of shape \(2,\)\) of distribution "
      r"Geometric\(.*\) to be positive"),
    C("distributions-lognormal-support",
      "pdt.distributions.LogNormal(0.0, 1.0).log_prob(pdt.tensor(-1.0))", "ValueError",
      r"LogNormal.log_prob\(\): the value argument must be within the support"),
    C("distributions-independent-ndims",
      "pdt.distributions.Independent(pdt.distributions.Normal(pdt.zeros(3), 1.0), 2)",
      "ValueError", r"Expected reinterpreted_batch_ndims <= len\(base_distribution."
      r"batch_shape\), actual 2 vs 1"),
    C("distributions-onehotcategorical-support",
      "pdt.distributions.OneHotCategorical(pdt.ones(3)).log_prob(pdt.tensor([0.5, 0.5, 0.0]))",
      "ValueError", r"OneHotCategorical.log_prob\(\): the value argument must be within the "
      r"support of the distribution \(OneHot\(\)\)"),
    C("distributions-mvn-two-matrices",
      "pdt.distributions.MultivariateNormal(pdt.zeros(2), pdt.eye(2), scale_tril=pdt.eye(2))",
      "ValueError", r"MultivariateNormal\(\): Exactly one of covariance_matrix or "
      r"precision_matrix or scale_tril may be specified"),
    C("distributions-mvn-not-pd",
      "pdt.distributions.MultivariateNormal(pdt.zeros(2), pdt.tensor([[1.0, 2.0], [2.0, 1.0]]))",
      "ValueError", r"Expected parameter covariance_matrix \(Tensor of shape \(2, 2\)\) .* "
      r"PositiveDefinite\(\)"),
    C("distributions-gamma-rate", "pdt.distributions.Gamma(1.0, -1.0)", "ValueError",
      r"Expected parameter rate \(Tensor of shape \(\)\) of distribution Gamma\(.*\) to "
      r"satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-chi2-df", "pdt.distributions.Chi2(pdt.tensor([0.0]))", "ValueError",
      r"Expected parameter df \(Tensor of shape \(1,\)\) of distribution Chi2\(\)"),
    C("distributions-beta-support",
      "pdt.distributions.Beta(2.0, 3.0).log_prob(pdt.tensor(1.5))", "ValueError",
      r"Beta.log_prob\(\): the value argument must be within the support"),
    C("distributions-dirichlet-0d", "pdt.distributions.Dirichlet(pdt.tensor(1.0))",
      "ValueError", r"Dirichlet\(\): `concentration` parameter must be at least "
      r"one-dimensional"),
    # PyTorch's further distributions (StudentT ... LowRankMultivariateNormal)
    C("distributions-studentt-df", "pdt.distributions.StudentT(pdt.tensor([0.0, 2.0]))",
      "ValueError", r"Expected parameter df \(Tensor of shape \(2,\)\) of distribution "
      r"StudentT\(.*\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-fishersnedecor-df2", "pdt.distributions.FisherSnedecor(1.0, -2.0)",
      "ValueError", r"Expected parameter df2 \(Tensor of shape \(\)\) of distribution "
      r"FisherSnedecor\(.*\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-inversegamma-support",
      "pdt.distributions.InverseGamma(2.0, 1.0).log_prob(pdt.tensor(-1.0))", "ValueError",
      r"InverseGamma.log_prob\(\): the value argument must be within the support"),
    C("distributions-lkj-dim", "pdt.distributions.LKJCholesky(1, 1.0)", "ValueError",
      r"Expected dim to be an integer greater than or equal to 2. Found dim=1."),
    C("distributions-lkj-dim-float", "pdt.distributions.LKJCholesky(2.5, 1.0)", "TypeError",
      r"LKJCholesky\(\): dim must be an int, got float"),
    C("distributions-lkj-concentration", "pdt.distributions.LKJCholesky(3, -1.0)", "ValueError",
      r"Expected parameter concentration .* of distribution LKJCholesky"),
    C("distributions-lkj-support",
      "pdt.distributions.LKJCholesky(2).log_prob(pdt.ones(2, 2))", "ValueError",
      r"LKJCholesky.log_prob\(\): the value argument must be within the support"),
    C("distributions-negativebinomial-probs",
      "pdt.distributions.NegativeBinomial(2.0, pdt.tensor([1.0]))", "ValueError",
      r"Expected parameter probs \(Tensor of shape \(1,\)\) of distribution "
      r"NegativeBinomial\(.*\) to satisfy the constraint HalfOpenInterval"),
    C("distributions-continuousbernoulli-both",
      "pdt.distributions.ContinuousBernoulli(0.3, logits=0.0)", "ValueError",
      r"ContinuousBernoulli\(\): Either `probs` or `logits` must be specified, but not both"),
    C("distributions-vonmises-concentration",
      "pdt.distributions.VonMises(0.0, pdt.tensor([0.0]))", "ValueError",
      r"Expected parameter concentration \(Tensor of shape \(1,\)\) of distribution "
      r"VonMises\(.*\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-lowrankmvn-factor-rows",
      "pdt.distributions.LowRankMultivariateNormal(pdt.zeros(3), pdt.ones(2, 1), pdt.ones(3))",
      "ValueError", r"LowRankMultivariateNormal\(\): cov_factor must be a batch of matrices "
      r"with shape 3 x m, got \(2, 1\)"),
    C("distributions-mixture-k",
      "pdt.distributions.MixtureSameFamily(pdt.distributions.Categorical(pdt.ones(3)), "
      "pdt.distributions.Normal(pdt.zeros(2), 1.0))", "ValueError",
      r"MixtureSameFamily\(\): `mixture_distribution component` \(3\) does not equal "
      r"`component_distribution.batch_shape\[-1\]` \(2\)"),
    C("manual_seed-too-big", "pdt.manual_seed(2 ** 64)", "ValueError",
      r"manual_seed\(\): seed 18446744073709551616 is out of range: it must be in "
      r"\[-2\*\*63, 2\*\*64\)", isolated=True),
    C("Generator-manual_seed-too-small", "pdt.Generator().manual_seed(-2 ** 63 - 1)",
      "ValueError", r"Generator.manual_seed\(\): seed -9223372036854775809 is out of range"),
    C("Size-float", "pdt.Size([2.5, 3])", "TypeError",
      r"pydevtensor.Size\(\) takes an iterable of 'int' \(item 0 is 'float'\)"),
]

# distributions.transforms, biject_to and TransformedDistribution
RANDOM_CASES += [
    C("distributions-transform-cache_size",
      "pdt.distributions.transforms.ExpTransform(cache_size=2)", "ValueError",
      r"cache_size must be 0 or 1, got 2"),
    C("distributions-reshapetransform-numel",
      "pdt.distributions.transforms.ReshapeTransform((2, 3), (5,))", "ValueError",
      r"in_shape, out_shape have different numbers of elements: \(2, 3\) vs \(5,\)"),
    C("distributions-biject_to-boolean",
      "pdt.distributions.biject_to(pdt.distributions.constraints.boolean)",
      "NotImplementedError", r"Cannot transform _Boolean constraints"),
    C("distributions-transformed-transforms",
      "pdt.distributions.TransformedDistribution(pdt.distributions.Normal(0.0, 1.0), 'exp')",
      "ValueError", r"transforms must be a Transform or list, but was exp"),
]

# Pareto, Weibull, HalfCauchy and Kumaraswamy
RANDOM_CASES += [
    C("distributions-pareto-support", "pdt.distributions.Pareto(2.0, 1.0).log_prob("
      "pdt.tensor(1.5))", "ValueError",
      r"Pareto.log_prob\(\): the value argument must be within the support of the "
      r"distribution \(GreaterThanEq\(lower_bound=2.0\)\)"),
    C("distributions-weibull-concentration", "pdt.distributions.Weibull(1.0, -1.0)",
      "ValueError", r"Expected parameter concentration \(Tensor of shape \(\)\) of "
      r"distribution Weibull\(.*\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
]

# LogisticNormal, GeneralizedPareto and the Concrete relaxations
RANDOM_CASES += [
    C("distributions-generalizedpareto-scale",
      "pdt.distributions.GeneralizedPareto(0.0, pdt.tensor([-1.0]), 0.5)", "ValueError",
      r"Expected parameter scale \(Tensor of shape \(1,\)\) of distribution "
      r"GeneralizedPareto\(.*\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-logisticnormal-scale", "pdt.distributions.LogisticNormal(0.0, -1.0)",
      "ValueError", r"Expected parameter scale \(Tensor of shape \(\)\) of distribution "
      r"Normal\(.*\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    C("distributions-relaxedbernoulli-both",
      "pdt.distributions.RelaxedBernoulli(1.0, probs=0.5, logits=0.0)", "ValueError",
      r"LogitRelaxedBernoulli\(\): Either `probs` or `logits` must be specified, but not "
      r"both"),
    C("distributions-relaxedonehotcategorical-temperature",
      "pdt.distributions.RelaxedOneHotCategorical('hot', probs=pdt.ones(3))", "TypeError",
      r"temperature must be a number or a Tensor, got str"),
]

# CorrCholesky, PositiveDefinite, Cat, Stack and CumulativeDistribution transforms
RANDOM_CASES += [
    C("distributions-cattransform-lengths",
      "pdt.distributions.CatTransform([pdt.distributions.ExpTransform()], lengths=[1, 2])",
      "ValueError", r"CatTransform: 2 lengths for 1 transforms"),
    C("distributions-stacktransform-part",
      "pdt.distributions.StackTransform([pdt.distributions.ExpTransform(), 'exp'])",
      "TypeError", r"StackTransform: every element of tseq must be a Transform, got "
      r"\['ExpTransform', 'str'\]"),
    C("distributions-corrcholesky-size",
      "pdt.distributions.CorrCholeskyTransform()(pdt.zeros(5))", "ValueError",
      r"CorrCholeskyTransform: the last dimension, 5, is not D\(D-1\)/2 for any D"),
]

# OneHotCategoricalStraightThrough, the matrix and integer constraints and the utils
RANDOM_CASES += [
    C("distributions-onehotstraightthrough-both",
      "pdt.distributions.OneHotCategoricalStraightThrough(pdt.ones(3), pdt.ones(3))",
      "ValueError", r"Either `probs` or `logits` must be specified, but not both"),
    C("distributions-mixturesamefamilyconstraint-base",
      "pdt.distributions.constraints.MixtureSameFamilyConstraint('positive')", "TypeError",
      r"MixtureSameFamilyConstraint: base_constraint must be a Constraint, got str"),
    C("distributions-utils-tril_matrix_to_vec-diag",
      "pdt.distributions.utils.tril_matrix_to_vec(pdt.zeros(3, 3), diag=3)", "ValueError",
      r"tril_matrix_to_vec: diag \(3\) provided is outside \[-3, 2\] \(matrix of shape "
      r"\(3, 3\)\)"),
    C("distributions-utils-vec_to_tril_matrix-size",
      "pdt.distributions.utils.vec_to_tril_matrix(pdt.zeros(4))", "ValueError",
      r"vec_to_tril_matrix: the size of last dimension is 4 \(vec of shape \(4,\)\), which "
      r"cannot be expressed"),
    C("distributions-wishart-df",
      "pdt.distributions.Wishart(1.0, covariance_matrix=pdt.eye(2))", "ValueError",
      r"Wishart\(\): Value of df=1.0 expected to be greater than ndim - 1 = 1"),
    C("distributions-wishart-1d",
      "pdt.distributions.Wishart(3.0, scale_tril=pdt.ones(2))", "ValueError",
      r"Wishart\(\): scale_tril must be at least two-dimensional"),
    # torch.quasirandom.SobolEngine (quasirandom.py)
    C("SobolEngine-dimension-big", "pdt.quasirandom.SobolEngine(21201)", "ValueError",
      r"Supported range of dimensionality for SobolEngine is \[1, 1111\] in pydevtensor"),
    C("SobolEngine-dimension-float", "pdt.quasirandom.SobolEngine(2.5)", "TypeError",
      r"SobolEngine\(\): dimension must be an int, got float"),
    C("SobolEngine-draw-negative", "pdt.quasirandom.SobolEngine(2).draw(-3)", "ValueError",
      r"SobolEngine.draw\(\): n must be >= 0, got -3"),
    C("SobolEngine-draw-int-dtype", "pdt.quasirandom.SobolEngine(2).draw(2, dtype=pdt.int32)",
      "pydevtensor.DTypeError", r"dtype must be float32 or float64, got pydevtensor.int32"),
    C("SobolEngine-draw_base2-unbalanced",
      "e = pdt.quasirandom.SobolEngine(2)\ne.draw(3)\ne.draw_base2(2)", "ValueError",
      r"require n to be a power of 2. 3 points have been previously generated"),
    # torch.signal.windows (signal/windows.py)
    C("windows-hann-negative", "pdt.signal.windows.hann(-2)", "ValueError",
      r"hann requires non-negative window length, got M=-2"),
    C("windows-kaiser-int-dtype", "pdt.signal.windows.kaiser(4, dtype=pdt.int32)", "ValueError",
      r"kaiser expects float32 or float64 dtypes, got: pydevtensor.int32"),
    C("windows-gaussian-std", "pdt.signal.windows.gaussian(4, std=0.0)", "ValueError",
      r"Standard deviation must be positive, got: 0.0 instead"),
    C("windows-general_cosine-empty", "pdt.signal.windows.general_cosine(4, a=())",
      "ValueError", r"Coefficients cannot be empty"),
]
