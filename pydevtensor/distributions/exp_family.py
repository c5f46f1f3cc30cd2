"""ExponentialFamily: PyTorch's ``torch.distributions.ExponentialFamily``, the base of
the distributions of density ``h(x) exp(<theta, t(x)> - F(theta))``, whose entropy and
KL divergence (``kl.py``) follow from the log normalizer F by autograd."""
from ..autograd import enable_grad, grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """The base class of the exponential families, as PyTorch's: distributions of density
    ``p(x; theta) = h(x) exp(<t(x), theta> - F(theta))`` for natural parameters theta,
    sufficient statistic t, log normalizer F and carrier measure h.  A subclass gives
    ``_natural_params`` (the tuple theta), ``_log_normalizer(*theta)`` (F) and
    ``_mean_carrier_measure`` (E[log h(X)]); ``entropy`` is then
    ``F(theta) - <theta, grad F(theta)> - E[log h(X)]`` (grad F by autograd, the Bregman
    divergence's form), and ``kl_divergence`` of two of the same class is the Bregman
    divergence of F.  Bernoulli, Beta, ContinuousBernoulli, Dirichlet, Exponential, Gamma
    (Chi2), Normal and Poisson are exponential families, as PyTorch's; each keeps its
    closed-form entropy.

    Parameters
    ----------
    batch_shape : tuple of ints, optional
        The shape of the batch of distributions (default ()).
    event_shape : tuple of ints, optional
        The shape of one draw (default ()).
    validate_args : bool, optional
        Check the parameters (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import ExponentialFamily, Exponential
    >>> d = Exponential(pydevtensor.tensor([0.5, 2.0]))
    >>> isinstance(d, ExponentialFamily), d._natural_params
    (True, (tensor([-0.5000, -2.0000]),))
    >>> ExponentialFamily.entropy(d), d.entropy()  # the Bregman form, the closed form
    (tensor([1.6931, 0.3069], grad_fn=<SubBackward0>), tensor([1.6931, 0.3069]))
    """

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of Tensors (each class its own)."""
        raise NotImplementedError(f"{type(self).__name__} does not give its natural "
                                  f"parameters (_natural_params)")

    def _log_normalizer(self, *natural_params):
        """The log normalizer F(theta), batched as the distribution."""
        raise NotImplementedError(f"{type(self).__name__} does not give its log normalizer "
                                  f"(_log_normalizer)")

    @property
    def _mean_carrier_measure(self):
        """E[log h(X)], the expected log carrier measure."""
        raise NotImplementedError(f"{type(self).__name__} does not give its mean carrier "
                                  f"measure (_mean_carrier_measure), so its entropy has no "
                                  f"Bregman form")

    def entropy(self):
        """The entropy by the Bregman divergence of the log normalizer, as PyTorch's
        ExponentialFamily's: ``F(theta) - <theta, grad F(theta)> - E[log h(X)]``, grad F
        by autograd (the result is differentiable in theta).

        Returns
        -------
        Tensor
            Of the batch shape.

        Raises
        ------
        NotImplementedError
            The class gives no ``_mean_carrier_measure`` (Beta, Dirichlet, Poisson, as
            PyTorch's).

        Examples
        --------
        >>> from pydevtensor.distributions import ExponentialFamily, Normal
        >>> ExponentialFamily.entropy(Normal(pydevtensor.tensor([0.0]), 2.0))
        tensor([2.1121], grad_fn=<SubBackward0>)
        """
        result = -self._mean_carrier_measure
        with enable_grad():
            nparams = [p.detach().requires_grad_() for p in self._natural_params]
            lg_normal = self._log_normalizer(*nparams)
            gradients = grad(lg_normal.sum(), nparams, create_graph=True)
            result = result + lg_normal
            for nparam, g in zip(nparams, gradients):
                result = result - (nparam * g).reshape(tuple(self.batch_shape) + (-1,)).sum(-1)
        return result
