"""``torch.utils.data.sampler``'s public names, for code that imports them from there
(``from torch.utils.data.sampler import Sampler``): the same objects as
``pydevtensor.utils.data``'s."""
from ._sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                       SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]
