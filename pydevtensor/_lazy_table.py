"""Where the names of the modules that ``import pydevtensor`` leaves unloaded live
(Note [lazy ops modules] in _lazy.py).

NAMES: the top-level names each such module provides; ALIASES: those provided under another
name there; TENSOR: the Tensor attributes each sets when it loads (a placeholder stands in
for them until then).  tests/test_import_lazy.py checks them against the modules and says
what to add here when a module gains a name or a Tensor method."""

NAMES = {
    '_control_flow': (
        'cond', 'while_loop',
    ),
    '_default_dtype': (
        'get_default_dtype', 'set_default_dtype',
    ),
    '_linalg_exp': (
        'matrix_exp',
    ),
    '_linalg_householder': (
        'geqrf', 'ormqr',
    ),
    '_linalg_lobpcg': (
        'lobpcg',
    ),
    '_linalg_lowrank': (
        'pca_lowrank', 'svd_lowrank',
    ),
    '_linalg_lu': (
        'lu_unpack',
    ),
    '_linalg_names': (
        'cholesky_inverse',
    ),
    '_linalg_solve': (
        'cholesky_solve', 'det', 'inverse', 'logdet',
    ),
    '_linalg_tensor': (
        'orgqr',
    ),
    '_ops_aten_losses': (
        'binary_cross_entropy_with_logits', 'cosine_embedding_loss', 'ctc_loss', 'embedding',
        'embedding_bag', 'hinge_embedding_loss', 'kl_div', 'margin_ranking_loss',
        'poisson_nll_loss', 'triplet_margin_loss',
    ),
    '_ops_aten_more': (
        'as_strided_', 'as_strided_scatter', 'constant_pad_nd', 'conv_tbc', 'convolution',
        'empty_permuted', 'index_put_', 'resize_as_',
    ),
    '_ops_bernoulli': (
        'bernoulli',
    ),
    '_ops_binomial': (
        'binomial',
    ),
    '_ops_counting': (
        'bincount', 'bucketize', 'searchsorted', 'unique',
    ),
    '_ops_cov': (
        'corrcoef', 'cov',
    ),
    '_ops_creation_more': (
        'asarray', 'bartlett_window', 'blackman_window', 'frombuffer', 'hamming_window',
        'hann_window', 'kaiser_window', 'scalar_tensor',
    ),
    '_ops_cumulative': (
        'cumprod', 'diff', 'roll',
    ),
    '_ops_diag': (
        'block_diag', 'cartesian_prod', 'combinations', 'diag', 'diag_embed', 'diagflat',
        'diagonal', 'tril_indices', 'triu_indices',
    ),
    '_ops_distance': (
        'cdist', 'dist', 'pdist', 'renorm',
    ),
    '_ops_einsum': (
        'einsum', 'ger', 'outer',
    ),
    '_ops_elementwise_more': (
        'angle', 'clamp_max', 'clamp_max_', 'clamp_min', 'clamp_min_', 'copysign',
        'float_power', 'fmax', 'fmin', 'fmod', 'gcd', 'heaviside', 'hypot', 'lcm', 'logaddexp2',
        'positive',
    ),
    '_ops_float_parts': (
        'frexp', 'ldexp', 'nextafter', 'rsub',
    ),
    '_ops_gamma': (
        'mvlgamma', 'polygamma',
    ),
    '_ops_gradient': (
        'gradient',
    ),
    '_ops_histogram': (
        'cumulative_trapezoid', 'histc', 'histogram', 'histogramdd', 'trapezoid', 'trapz',
        'unique_consecutive',
    ),
    '_ops_igamma': (
        'igamma', 'igammac',
    ),
    '_ops_index_more': (
        'argwhere', 'index_copy', 'index_fill', 'index_put', 'isin', 'masked_scatter',
        'masked_select', 'nonzero_static', 'take', 'take_along_dim',
    ),
    '_ops_join': (
        'cat', 'concat', 'concatenate', 'flip', 'fliplr', 'flipud', 'hstack', 'meshgrid',
        'stack', 'tril', 'triu', 'vstack',
    ),
    '_ops_linalg_small': (
        'addbmm', 'addmv', 'addmv_', 'addr', 'chain_matmul', 'cross', 'matrix_power',
    ),
    '_ops_logical': (
        'all', 'any', 'bitwise_and', 'bitwise_left_shift', 'bitwise_not', 'bitwise_or',
        'bitwise_right_shift', 'bitwise_xor', 'logical_and', 'logical_not', 'logical_or',
        'logical_xor',
    ),
    '_ops_logspace': (
        'logspace',
    ),
    '_ops_multinomial': (
        'multinomial',
    ),
    '_ops_nan': (
        'count_nonzero', 'logsumexp', 'nan_to_num', 'nan_to_num_', 'nanmean', 'nansum',
    ),
    '_ops_norm_names': (
        'frobenius_norm', 'norm_except_dim', 'nuclear_norm',
    ),
    '_ops_pointwise': (
        'addcdiv', 'addcmul', 'frac', 'lerp', 'sgn', 'signbit',
    ),
    '_ops_poisson': (
        'poisson',
    ),
    '_ops_products': (
        'inner', 'kron', 'tensordot', 'vander',
    ),
    '_ops_quantile': (
        'nanquantile', 'quantile',
    ),
    '_ops_random': (
        'normal',
    ),
    '_ops_real': (
        'adjoint', 'conj', 'imag', 'is_complex', 'is_conj', 'is_neg', 'is_same_size',
        'is_signed', 'isneginf', 'isposinf', 'isreal', 'pinverse', 'real', 'resolve_conj',
        'resolve_neg', 'vdot',
    ),
    '_ops_reduce_more': (
        'aminmax', 'cummax', 'cummin', 'kthvalue', 'median', 'mode', 'msort', 'nanmedian',
        'std_mean', 'var_mean',
    ),
    '_ops_repeat': (
        'repeat_interleave',
    ),
    '_ops_scatter': (
        'index_add', 'index_reduce', 'scatter', 'scatter_add', 'scatter_reduce',
    ),
    '_ops_shape': (
        'atleast_1d', 'atleast_2d', 'atleast_3d', 'broadcast_shapes', 'broadcast_tensors',
        'broadcast_to', 'moveaxis', 'movedim', 'narrow', 'ravel', 'select', 'swapaxes',
        'swapdims', 'tile', 'unflatten',
    ),
    '_ops_shortcuts': (
        'clone', 'is_nonzero', 'is_tensor', 'numel', 'rand_like', 'randn_like', 'randperm',
        'reciprocal', 'square',
    ),
    '_ops_small_names': (
        'cosine_similarity', 'empty_strided', 'exp_', 'is_floating_point', 'randint_like',
        'relu_', 'sigmoid_', 'tanh_', 'unravel_index',
    ),
    '_ops_sort': (
        'argsort', 'cumsum', 'sort', 'topk',
    ),
    '_ops_special': (
        'exp2', 'logit', 'sinc', 'xlogy',
    ),
    '_ops_special_more': (
        'i0',
    ),
    '_ops_split': (
        'chunk', 'split', 'split_with_sizes', 'unbind', 'unsafe_chunk', 'unsafe_split',
    ),
    '_ops_split_stack': (
        'column_stack', 'dsplit', 'dstack', 'hsplit', 'rot90', 'row_stack', 'tensor_split',
        'vsplit',
    ),
    '_ops_strided': (
        'as_strided', 'is_inference', 'put', 'trace',
    ),
    '_ops_torch_dropout': (
        'alpha_dropout', 'alpha_dropout_', 'dropout', 'dropout_', 'feature_alpha_dropout',
        'feature_alpha_dropout_', 'feature_dropout', 'feature_dropout_',
    ),
    '_ops_torch_legacy': (
        'batch_norm', 'instance_norm', 'lu', 'lu_solve', 'triangular_solve',
    ),
    '_ops_torch_names': (
        'abs_', 'acos_', 'acosh_', 'arccos_', 'arccosh_', 'arcsin_', 'arcsinh_', 'arctan_',
        'arctanh_', 'asin_', 'asinh_', 'atan_', 'atanh_', 'ceil_', 'clamp_', 'clip_', 'cos_',
        'cosh_', 'deg2rad_', 'detach', 'detach_', 'erf_', 'erfc_', 'exp2_', 'expm1_', 'fill',
        'fill_', 'fix_', 'floor_', 'frac_', 'gcd_', 'get_device', 'i0_', 'lcm_', 'ldexp_',
        'log10_', 'log1p_', 'log2_', 'log_', 'logit_', 'neg_', 'negative_', 'rad2deg_',
        'reciprocal_', 'round_', 'rsqrt_', 'sin_', 'sinc_', 'sinh_', 'sqrt_', 'square_', 'tan_',
        'trunc_', 'typename', 'xlogy_', 'zero_',
    ),
    '_ops_trig': (
        'acos', 'acosh', 'arccos', 'arccosh', 'arcsin', 'arcsinh', 'arctan', 'arctan2',
        'arctanh', 'asin', 'asinh', 'atan', 'atan2', 'atanh', 'cosh', 'deg2rad', 'erfinv',
        'log10', 'log2', 'logaddexp', 'logcumsumexp', 'rad2deg', 'rsqrt', 'sinh', 'tan',
    ),
    '_ops_view_copy': (
        'alias_copy', 'as_strided_copy', 'detach_copy', 'diagonal_copy', 'expand_copy',
        'narrow_copy', 'permute_copy', 'select_copy', 'slice_copy', 'split_copy',
        'split_with_sizes_copy', 'squeeze_copy', 't_copy', 'transpose_copy', 'unbind_copy',
        'unfold_copy', 'unsqueeze_copy', 'view_copy',
    ),
    '_ops_view_scatter': (
        'diagonal_scatter', 'select_scatter', 'slice_scatter',
    ),
    '_precision': (
        'are_deterministic_algorithms_enabled', 'get_deterministic_debug_mode',
        'get_float32_matmul_precision', 'is_deterministic_algorithms_warn_only_enabled',
        'set_deterministic_debug_mode', 'set_float32_matmul_precision',
        'use_deterministic_algorithms',
    ),
    '_runtime_flags': (
        'get_num_interop_threads', 'init_num_threads', 'is_warn_always_enabled',
        'set_flush_denormal', 'set_num_interop_threads', 'set_warn_always',
    ),
    '_storage': (
        'TypedStorage', 'UntypedStorage',
    ),
    '_tensor_legacy': (
        'BoolTensor', 'DoubleTensor', 'FloatTensor', 'IntTensor', 'LongTensor',
    ),
}
# _ops_torch_names' FUNCTIONAL_ALIASES and FUNCTIONAL_RENAMED (torch.conv2d, ...)
FUNCTIONAL = (
    'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d',
    'pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle', 'prelu', 'hardshrink', 'bilinear',
    'pairwise_distance', 'avg_pool1d', 'adaptive_avg_pool1d', 'rms_norm', 'layer_norm',
    'group_norm', 'selu', 'selu_', 'celu', 'celu_', 'rrelu', 'rrelu_', 'threshold',
    'threshold_', 'max_pool1d', 'max_pool2d', 'max_pool3d', 'max_pool1d_with_indices',
    'adaptive_max_pool1d',
)
ALIASES = {'slogdet': ('_linalg_solve', 'torch_slogdet'), 'svd': ('_linalg_decomp', 'torch_svd')}
TENSOR = {
    '_linalg_decomp': (
        'svd',
    ),
    '_linalg_exp': (
        'matrix_exp',
    ),
    '_linalg_householder': (
        'geqrf', 'orgqr', 'ormqr',
    ),
    '_linalg_names': (
        'cholesky_inverse', 'cholesky_solve',
    ),
    '_linalg_solve': (
        'det', 'inverse', 'logdet', 'slogdet',
    ),
    '_ops_bernoulli': (
        'bernoulli', 'bernoulli_', 'random_',
    ),
    '_ops_counting': (
        'bincount', 'unique',
    ),
    '_ops_cumulative': (
        'cumprod', 'diff', 'mH', 'mT', 'roll',
    ),
    '_ops_diag': (
        'diag', 'diag_embed', 'diagflat', 'diagonal',
    ),
    '_ops_distance': (
        'dist', 'renorm', 'renorm_',
    ),
    '_ops_einsum': (
        'ger', 'outer',
    ),
    '_ops_elementwise_more': (
        'angle', 'clamp_max', 'clamp_max_', 'clamp_min', 'clamp_min_', 'float_power',
        'float_power_', 'fmax', 'fmin', 'gcd', 'gcd_', 'heaviside', 'heaviside_', 'lcm', 'lcm_',
        'positive',
    ),
    '_ops_float_parts': (
        'frexp', 'ldexp', 'ldexp_', 'nextafter', 'nextafter_',
    ),
    '_ops_gamma': (
        'mvlgamma', 'mvlgamma_', 'polygamma', 'polygamma_',
    ),
    '_ops_histogram': (
        'histc', 'histogram', 'unique_consecutive',
    ),
    '_ops_igamma': (
        'igamma', 'igamma_', 'igammac', 'igammac_',
    ),
    '_ops_index_more': (
        'argwhere', 'index_copy', 'index_copy_', 'index_fill', 'index_fill_', 'index_put',
        'index_put_', 'masked_scatter', 'masked_scatter_', 'masked_select', 'nonzero_static',
        'take', 'take_along_dim',
    ),
    '_ops_join': (
        'expand', 'expand_as', 'flip', 'fliplr', 'flipud', 'repeat', 'tril', 'triu',
    ),
    '_ops_linalg_small': (
        'addbmm', 'addbmm_', 'addmm_', 'addmv', 'addmv_', 'addr', 'addr_', 'baddbmm_', 'cross',
        'matrix_power',
    ),
    '_ops_logical': (
        '__ilshift__', '__irshift__', '__lshift__', '__rlshift__', '__rrshift__', '__rshift__',
        'all', 'any', 'bitwise_not', 'bitwise_not_', 'logical_and', 'logical_and_',
        'logical_not', 'logical_not_', 'logical_or', 'logical_or_', 'logical_xor',
        'logical_xor_',
    ),
    '_ops_multinomial': (
        'multinomial',
    ),
    '_ops_nan': (
        'count_nonzero', 'logsumexp', 'nan_to_num', 'nan_to_num_', 'nanmean', 'nansum',
    ),
    '_ops_pointwise': (
        'addcdiv', 'addcdiv_', 'addcmul', 'addcmul_', 'frac', 'frac_', 'lerp', 'lerp_', 'sgn',
        'sgn_', 'signbit',
    ),
    '_ops_products': (
        'inner', 'kron',
    ),
    '_ops_quantile': (
        'nanquantile', 'quantile',
    ),
    '_ops_real': (
        'H', 'adjoint', 'cauchy_', 'conj', 'exponential_', 'geometric_', 'is_complex',
        'is_conj', 'is_neg', 'isneginf', 'isposinf', 'isreal', 'log_normal_', 'pinverse',
        'resolve_conj', 'resolve_neg', 'sum_to_size', 'vdot',
    ),
    '_ops_reduce_more': (
        'aminmax', 'cummax', 'cummin', 'kthvalue', 'median', 'mode', 'msort', 'nanmedian',
    ),
    '_ops_repeat': (
        'repeat_interleave',
    ),
    '_ops_scatter': (
        'index_add', 'index_add_', 'index_reduce', 'index_reduce_', 'scatter', 'scatter_',
        'scatter_add', 'scatter_add_', 'scatter_reduce', 'scatter_reduce_',
    ),
    '_ops_shape': (
        '__reversed__', 'broadcast_to', 'moveaxis', 'movedim', 'narrow', 'ravel', 'select',
        'swapaxes', 'swapdims', 'tile', 'unflatten',
    ),
    '_ops_shortcuts': (
        'is_nonzero', 'reciprocal', 'reshape_as', 'square', 'type_as', 'view_as',
    ),
    '_ops_small_names': (
        'corrcoef', 'cov', 'cumprod_', 'cumsum_', 'eq_', 'fill_', 'ge_', 'greater_',
        'greater_equal_', 'gt_', 'is_cpu', 'is_signed', 'le_', 'less_', 'less_equal_', 'lt_',
        'ne_', 'not_equal_', 'reciprocal_', 'square_', 'tril_', 'triu_',
    ),
    '_ops_sort': (
        'argsort', 'cumsum', 'sort', 'topk',
    ),
    '_ops_special': (
        'logit', 'logit_', 'sinc', 'sinc_', 'xlogy', 'xlogy_',
    ),
    '_ops_special_more': (
        'i0', 'i0_',
    ),
    '_ops_split': (
        'chunk', 'split', 'split_with_sizes', 'unbind', 'unsafe_chunk', 'unsafe_split',
    ),
    '_ops_split_stack': (
        'dsplit', 'hsplit', 'rot90', 'tensor_split', 'vsplit',
    ),
    '_ops_strided': (
        'as_strided', 'fill_diagonal_', 'is_inference', 'put', 'put_', 'trace', 'unfold',
    ),
    '_ops_torch_names': (
        'hardshrink', 'prelu',
    ),
    '_ops_trig': (
        'deg2rad', 'deg2rad_', 'logcumsumexp', 'rad2deg', 'rad2deg_',
    ),
    '_ops_view_copy': (
        'narrow_copy',
    ),
    '_ops_view_in_place': (
        'as_strided_', 'squeeze_', 'swapaxes_', 'swapdims_', 't_', 'transpose_', 'unsqueeze_',
    ),
    '_ops_view_scatter': (
        'diagonal_scatter', 'select_scatter', 'slice_scatter',
    ),
    '_storage': (
        'is_set_to', 'set_', 'storage', 'untyped_storage',
    ),
    '_tensor_aliases': (
        '__complex__', 'as_subclass', 'conj_physical', 'conj_physical_', 'const_data_ptr',
        'to_dense',
    ),
    '_tensor_legacy': (
        'apply_', 'map_', 'new',
    ),
    '_tensor_queries': (
        'dim_order', 'is_distributed', 'is_ipu', 'is_maia', 'is_meta', 'is_mkldnn', 'is_mps',
        'is_mtia', 'is_nested', 'is_quantized', 'is_shared', 'is_sparse', 'is_sparse_csr',
        'is_vulkan', 'is_xla', 'is_xpu', 'layout',
    ),
}
MODULES = (
    '_control_flow', '_default_dtype', '_igamma_temme', '_linalg_decomp', '_linalg_exp',
    '_linalg_householder', '_linalg_ldl', '_linalg_lobpcg', '_linalg_lowrank', '_linalg_lstsq',
    '_linalg_lu', '_linalg_more', '_linalg_names', '_linalg_roots', '_linalg_solve',
    '_linalg_spectral', '_linalg_tensor', '_ops_aten_losses', '_ops_aten_more',
    '_ops_bernoulli', '_ops_binomial', '_ops_counting', '_ops_cov', '_ops_creation_more',
    '_ops_cumulative', '_ops_diag', '_ops_distance', '_ops_einsum', '_ops_elementwise_more',
    '_ops_float_parts', '_ops_gamma', '_ops_gradient', '_ops_histogram', '_ops_igamma',
    '_ops_index_more', '_ops_join', '_ops_linalg_small', '_ops_logical', '_ops_logspace',
    '_ops_multinomial', '_ops_nan', '_ops_norm_names', '_ops_pointwise', '_ops_poisson',
    '_ops_products', '_ops_quantile', '_ops_random', '_ops_real', '_ops_reduce_more',
    '_ops_repeat', '_ops_scatter', '_ops_shape', '_ops_shortcuts', '_ops_small_names',
    '_ops_sort', '_ops_special', '_ops_special_more', '_ops_split', '_ops_split_stack',
    '_ops_strided', '_ops_torch_dropout', '_ops_torch_legacy', '_ops_torch_names',
    '_ops_trig', '_ops_view_copy', '_ops_view_in_place', '_ops_view_scatter', '_precision',
    '_runtime_flags', '_storage', '_tensor_aliases', '_tensor_legacy', '_tensor_queries',
    'linalg'
)
# the return_types (namedtuples) each such module sets on pydevtensor.return_types when it
# loads; reading one before loads it (_ops_reduce._ReturnTypes)
RETURN_TYPES = {
    '_linalg_decomp': ('linalg_eigh', 'linalg_qr', 'linalg_svd', 'svd'),
    '_linalg_householder': ('geqrf',),
    '_linalg_ldl': ('linalg_ldl_factor', 'linalg_ldl_factor_ex'),
    '_linalg_lstsq': ('linalg_lstsq',),
    '_linalg_lu': ('linalg_lu', 'linalg_lu_factor', 'linalg_lu_factor_ex', 'lu_unpack'),
    '_linalg_roots': ('linalg_polar',),
    '_linalg_solve': (
        'linalg_cholesky_ex', 'linalg_inv_ex', 'linalg_slogdet', 'linalg_solve_ex', 'slogdet',
    ),
    '_ops_float_parts': ('frexp',),
    '_ops_reduce_more': (
        'aminmax', 'cummax', 'cummin', 'kthvalue', 'median', 'mode', 'nanmedian',
    ),
    '_ops_sort': ('sort', 'topk'),
    '_ops_torch_legacy': ('_lu_with_info', 'triangular_solve'),
}
