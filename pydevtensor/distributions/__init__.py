"""``pydevtensor.distributions``: PyTorch's ``torch.distributions`` for the
distributions of D2L 2.6 and the usual ones (Normal, Uniform, Bernoulli, Categorical,
Multinomial, Binomial, Poisson, Exponential), Laplace, LogNormal, Gumbel, HalfNormal,
Cauchy, Geometric, OneHotCategorical, Independent, MultivariateNormal, Gamma, Chi2,
Beta, Dirichlet, and ``kl_divergence``.

Pure Python on the package's ops, so every distribution works on every device its
parameters are on; draws come from the default generator's Philox stream (one seed, the
same draws on every device).  ``from pydevtensor.distributions.multinomial import
Multinomial`` works as D2L writes it.
"""
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .uniform import Uniform
# PyTorch's further distributions (StudentT ... LowRankMultivariateNormal)
from .continuous_bernoulli import ContinuousBernoulli  # noqa: E402
from .fisher_snedecor import FisherSnedecor  # noqa: E402
from .inverse_gamma import InverseGamma  # noqa: E402
from .lkj_cholesky import LKJCholesky  # noqa: E402
from .lowrank_multivariate_normal import LowRankMultivariateNormal  # noqa: E402
from .mixture_same_family import MixtureSameFamily  # noqa: E402
from .negative_binomial import NegativeBinomial  # noqa: E402
from .student_t import StudentT  # noqa: E402
from .von_mises import VonMises  # noqa: E402
from .wishart import Wishart  # noqa: E402
from . import _kl_more  # noqa: F401,E402 - registers the KL pairs of the families above

# transforms, biject_to/transform_to, TransformedDistribution and the families built on it
from . import transforms  # noqa: E402
from .constraint_registry import biject_to, transform_to  # noqa: E402
from .transformed_distribution import TransformedDistribution  # noqa: E402
from .transformed_families import HalfCauchy, Kumaraswamy, Pareto, Weibull  # noqa: E402
from .transformed_families import LogisticNormal  # noqa: E402
from .generalized_pareto import GeneralizedPareto  # noqa: E402
from .relaxed_bernoulli import RelaxedBernoulli  # noqa: E402
from .relaxed_categorical import RelaxedOneHotCategorical  # noqa: E402
from . import _kl_transformed  # noqa: F401,E402 - the Pareto and TransformedDistribution pairs
from . import _kl_cb_lowrank  # noqa: F401,E402 - the ContinuousBernoulli and low rank pairs
from .transforms import (AbsTransform, AffineTransform, ComposeTransform,  # noqa: E402
                         ExpTransform, IndependentTransform, LowerCholeskyTransform,
                         PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform,
                         SoftplusTransform, StickBreakingTransform, TanhTransform, Transform)
from .transforms import (CatTransform, CorrCholeskyTransform,  # noqa: E402
                         CumulativeDistributionTransform, PositiveDefiniteTransform,
                         StackTransform)

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
           "Distribution", "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal",
           "Independent", "Laplace", "LogNormal", "Multinomial", "MultivariateNormal",
           "Normal", "OneHotCategorical", "Poisson", "Uniform", "constraints",
           "kl_divergence", "register_kl"]
__all__ += ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
            "IndependentTransform", "LowerCholeskyTransform", "PowerTransform",
            "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
            "StickBreakingTransform", "TanhTransform", "Transform", "TransformedDistribution",
            "biject_to", "transform_to", "transforms", "HalfCauchy", "Kumaraswamy", "Pareto",
            "Weibull"]
# PyTorch's further distributions (StudentT ... LowRankMultivariateNormal)
__all__ += ["ContinuousBernoulli", "FisherSnedecor", "InverseGamma", "LKJCholesky",
            "LowRankMultivariateNormal", "MixtureSameFamily", "NegativeBinomial", "StudentT",
            "VonMises"]
__all__ += ["GeneralizedPareto", "LogisticNormal", "RelaxedBernoulli",
            "RelaxedOneHotCategorical"]
__all__ += ["ExponentialFamily", "OneHotCategoricalStraightThrough", "Wishart"]
__all__ += ["CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
            "PositiveDefiniteTransform", "StackTransform"]
