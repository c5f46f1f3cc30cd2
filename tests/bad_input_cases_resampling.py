"""The bad-input catalogue's cases for the 1-d and power-average pools, interpolate and
the upsampling layers, pixel shuffle, local_response_norm and rms_norm (and their
modules).  tests/bad_input_cases.py (where Case is) adds them to CASES;
tests/test_bad_input.py runs them."""
from bad_input_cases import C

RESAMPLING_CASES = [
    # ---- 1-d and power-average pools (nn/_functional_pool_more.py)
    C("max_pool1d-padding", "pdt.nn.MaxPool1d(2, padding=2)(pdt.zeros(1, 1, 4))",
      "pydevtensor.InvalidArgumentError", r"max_pool1d\(\): pad should be at most half of "
      r"effective kernel size, but got pad=2, kernel_size=2 and dilation=1 \(on cpu\)"),
    C("max_pool1d-2-kernel", "pdt.nn.functional.max_pool1d(pdt.zeros(1, 1, 4), (2, 2))",
      "pydevtensor.InvalidArgumentError", r"max_pool1d\(\): expected kernel_size to be a single "
      r"integer value or a list of 1 values to match the 1-d operation, but got "
      r"kernel_size=\(2, 2\)"),
    C("avg_pool1d-too-small", "pdt.nn.AvgPool1d(5)(pdt.zeros(1, 2, 4))",
      "pydevtensor.InvalidArgumentError", r"avg_pool1d\(\): given input size \(2x1x4\), "
      r"calculated output size \(2x1x0\) is too small"),
    C("avg_pool1d-4d", "pdt.nn.functional.avg_pool1d(pdt.zeros(1, 1, 2, 4), 2)",
      "pydevtensor.InvalidArgumentError", r"avg_pool1d\(\): expected a 2-d \(unbatched\) or "
      r"3-d \(batched\) input, got shape \(1, 1, 2, 4\) \(on cpu\)"),
    C("max_pool1d-int", "pdt.nn.functional.max_pool1d(pdt.zeros(1, 1, 4, dtype=pdt.int64), 2)",
      "RuntimeError", r"max_pool1d\(\): expected a floating point input, got "
      r"pydevtensor\.int64 of shape \(1, 1, 4\) \(on cpu\)"),
    C("AdaptiveAvgPool1d-negative", "pdt.nn.AdaptiveAvgPool1d(-2)(pdt.zeros(1, 1, 4))",
      "pydevtensor.InvalidArgumentError", r"adaptive_avg_pool1d\(\): output_size must be "
      r"non-negative, got output_size=\(-2,\)"),
    C("AdaptiveMaxPool1d-empty", "pdt.nn.AdaptiveMaxPool1d(2)(pdt.zeros(1, 1, 0))",
      "pydevtensor.InvalidArgumentError", r"adaptive_max_pool1d\(\): expected an input with a "
      r"non-zero length, got shape \(1, 1, 0\) \(on cpu\)"),
    # ---- fractional max pools (nn/_functional_fractional.py)
    C("fractional_max_pool2d-no-size", "pdt.nn.functional.fractional_max_pool2d("
      "pdt.zeros(1, 1, 4, 4), 2)", "ValueError", r"fractional_max_pool2d\(\) requires "
      r"specifying either an output_size or an output_ratio"),
    C("fractional_max_pool2d-pool-too-large", "pdt.nn.functional.fractional_max_pool2d("
      "pdt.zeros(1, 1, 7, 9), 4, output_size=5)", "pydevtensor.InvalidArgumentError",
      r"fractional_max_pool2d\(\): pool height 4 too large relative to input height 7 "
      r"\(output height 5; input of shape \(1, 1, 7, 9\) on cpu\)"),
    C("fractional_max_pool3d-samples-shape", "pdt.nn.functional.fractional_max_pool3d("
      "pdt.zeros(2, 3, 5, 6, 7), 2, output_size=2, _random_samples=pdt.zeros(2, 3, 2))",
      "pydevtensor.InvalidArgumentError", r"fractional_max_pool3d\(\): expected "
      r"_random_samples of shape \(at least 2, 3, 3\) for an input of shape "
      r"\(2, 3, 5, 6, 7\), got \(2, 3, 2\)"),
    C("fractional_max_pool2d-samples-dtype", "pdt.nn.functional.fractional_max_pool2d("
      "pdt.zeros(1, 1, 4, 4), 2, output_size=2, _random_samples=pdt.zeros(1, 1, 2, "
      "dtype=pdt.float64))", "RuntimeError", r"fractional_max_pool2d\(\): expected "
      r"_random_samples to have the same dtype as input, pydevtensor\.float32, got "
      r"pydevtensor\.float64"),
    C("FractionalMaxPool2d-ratio", "pdt.nn.FractionalMaxPool2d(2, output_ratio=1.5)",
      "ValueError", r"output_ratio must be between 0 and 1 \(got 1\.5\)"),
    C("lp_pool1d-norm-zero", "pdt.nn.functional.lp_pool1d(pdt.ones(1, 1, 4), 0, 2)",
      "ValueError", r"lp_pool1d\(\): norm_type must be a non-zero value, but got 0"),
    C("LPPool2d-norm-str", 'pdt.nn.LPPool2d("2", 2)(pdt.ones(1, 1, 4, 4))', "TypeError",
      r"lp_pool2d\(\): norm_type must be a number, got str"),
    C("lp_pool3d-norm-zero", "pdt.nn.functional.lp_pool3d(pdt.ones(1, 1, 2, 2, 2), 0, 2)",
      "ValueError", r"lp_pool3d\(\): norm_type must be a non-zero value, but got 0"),
    C("lp_pool3d-4d-kernel", "pdt.nn.functional.lp_pool3d(pdt.ones(1, 1, 2, 2, 2), 2, "
      "(2, 2))", "ValueError",
      r"lp_pool3d\(\): expected kernel_size to be a single integer value or a list of 3 values"),
    C("LPPool3d-int-input", "pdt.nn.LPPool3d(2, 2)(pdt.ones(1, 1, 2, 2, 2, dtype=pdt.int64))",
      "RuntimeError", r"lp_pool3d\(\): expected a floating point input, got pydevtensor.int64"),
    C("LPPool3d-4d-input", "pdt.nn.LPPool3d(2, 2)(pdt.ones(2, 2, 2))", "ValueError",
      r"lp_pool3d\(\): expected a 4-d \(unbatched\) or 5-d \(batched\) input, got shape"),
    C("max_unpool2d-index", "pdt.nn.functional.max_unpool2d(pdt.ones(1, 1, 2, 2), "
      "pdt.tensor([[[[0, 3], [8, 35]]]]), 2)", "RuntimeError",
      r"max_unpool2d\(\): Found an invalid max index: 35 \(output volumes are of size 4x4; "
      r"on cpu\)"),
    C("MaxUnpool2d-output-size", "pdt.nn.MaxUnpool2d(2)(pdt.ones(1, 1, 2, 2), "
      "pdt.zeros(1, 1, 2, 2, dtype=pdt.int64), (7, 7))", "ValueError",
      r'max_unpool2d\(\): invalid output_size "\(7, 7\)" \(dim 0 must be between 2 and 6\)'),
    C("max_unpool2d-int32", "pdt.nn.functional.max_unpool2d(pdt.ones(1, 1, 2, 2), "
      "pdt.zeros(1, 1, 2, 2, dtype=pdt.int32), 2)", "TypeError",
      r"elements in indices should be type int64 but got pydevtensor\.int32 \(on cpu\)"),
    C("max_unpool1d-index", "pdt.nn.functional.max_unpool1d(pdt.ones(1, 1, 2), "
      "pdt.tensor([[[1, 8]]]), 2)", "RuntimeError",
      r"max_unpool1d\(\): Found an invalid max index: 8 \(output volumes are of size 4; "
      r"on cpu\)"),
    C("MaxUnpool3d-output-size", "pdt.nn.MaxUnpool3d(2)(pdt.ones(1, 1, 1, 1, 2), "
      "pdt.zeros(1, 1, 1, 1, 2, dtype=pdt.int64), (2, 2))", "ValueError",
      r"max_unpool3d\(\): output_size should be a sequence of 3 or 5 ints, but got \(2, 2\)"),
    # ---- interpolate and the upsampling layers (nn/_functional_interpolate.py)
    C("upsample_bilinear-3d", "pdt.nn.functional.upsample_bilinear(pdt.zeros(1, 1, 4), "
      "scale_factor=2)", "NotImplementedError",
      r"interpolate\(\): Got 3D input \(shape \(1, 1, 4\) on cpu\), but bilinear mode "
      r"needs 4D input"),
    C("upsample_nearest-neither", "pdt.nn.functional.upsample_nearest(pdt.zeros(1, 1, 4))",
      "ValueError", r"interpolate\(\): either size or scale_factor should be defined"),
    C("upsample-mode", "pdt.nn.functional.upsample(pdt.zeros(1, 1, 4), 2, mode='cubic')",
      "NotImplementedError", r"interpolate\(\): mode .cubic. is not supported"),
    C("interpolate-neither", "pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4, 4))",
      "ValueError", r"interpolate\(\): either size or scale_factor should be defined"),
    C("interpolate-both", "pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4), 2, 2.0)",
      "ValueError", r"interpolate\(\): only one of size or scale_factor should be defined"),
    C("interpolate-size-length", "pdt.nn.Upsample(size=(2, 3, 4))(pdt.zeros(1, 1, 4, 4))",
      "ValueError", r"Input and output must have the same number of spatial dimensions, but "
      r"got input with spatial dimensions of \[4, 4\] and output size of \(2, 3, 4\) "
      r"\(on cpu\)"),
    C("interpolate-zero-size", "pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4, 4), "
      "scale_factor=0.1)", "pydevtensor.InvalidArgumentError",
      r"interpolate\(\): Input and output sizes should be greater than 0, but got input "
      r"\(4, 4\) and output \(0, 0\) \(input of shape \(1, 1, 4, 4\) on cpu\)"),
    C("interpolate-linear-4d", 'pdt.nn.Upsample(scale_factor=2, mode="linear")'
      "(pdt.zeros(1, 1, 4, 4))", "NotImplementedError",
      r"interpolate\(\): Got 4D input \(shape \(1, 1, 4, 4\) on cpu\), but linear mode needs "
      r"3D input"),
    C("interpolate-unknown-mode", 'pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4), 8, '
      'mode="lanczos")', "NotImplementedError",
      r"interpolate\(\): mode 'lanczos' is not supported; the modes are nearest, "
      r"nearest-exact, linear, bilinear, trilinear, bicubic, area"),
    C("interpolate-align-nearest", "pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4), 8, "
      "align_corners=True)", "ValueError", r"align_corners option can only be set with the "
      r"interpolating modes: linear \| bilinear \| bicubic \| trilinear \(got mode='nearest'\)"),
    C("interpolate-2d-input", "pdt.nn.functional.interpolate(t, 4)", "NotImplementedError",
      r"Only 3D, 4D and 5D input Tensors supported \(got 2D, shape \(2, 3\) on cpu\)"),
    C("interpolate-int", "pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4, dtype=pdt.int64), "
      "8, mode='linear')", "RuntimeError", r"interpolate\(\): expected a floating point input "
      r"for mode 'linear' \(integers only with 'nearest' and 'nearest-exact'; uint8 with "
      r"'bilinear' and antialiased 'bicubic' too\), got pydevtensor\.int64 of shape "
      r"\(1, 1, 4\) \(on cpu\)"),
    C("interpolate-antialias", 'pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4), 2, '
      'mode="linear", antialias=True)', "ValueError",
      r"interpolate\(\): Anti-alias option is restricted to bilinear and bicubic modes and "
      r"requires a 4-D tensor as input \(got mode='linear' and an input of shape \(1, 1, 4\) "
      r"on cpu\)"),
    C("interpolate-size-float", "pdt.nn.functional.interpolate(pdt.zeros(1, 1, 4), 2.5)",
      "TypeError", r"expected size to be an int or a tuple of 1 ints, but got 2\.5"),
    # ---- affine_grid and grid_sample (nn/_functional_grid_sample.py)
    C("grid_sample-last-dim", "pdt.nn.functional.grid_sample(pdt.zeros(1, 1, 3, 3), "
      "pdt.zeros(1, 2, 2, 3), align_corners=False)", "RuntimeError",
      r"grid_sample\(\): expected grid to have size 2 in last dimension, but got input with "
      r"sizes \[1, 1, 3, 3\] and grid with sizes \[1, 2, 2, 3\] \(on cpu and cpu\)"),
    C("grid_sample-batch", "pdt.nn.functional.grid_sample(pdt.zeros(2, 1, 3, 3), "
      "pdt.zeros(1, 2, 2, 2), align_corners=True)", "RuntimeError",
      r"expected grid and input to have same batch size, but got input with sizes "
      r"\[2, 1, 3, 3\] and grid with sizes \[1, 2, 2, 2\]"),
    C("grid_sample-mode", "pdt.nn.functional.grid_sample(pdt.zeros(1, 1, 3, 3), "
      "pdt.zeros(1, 2, 2, 2), mode='lanczos')", "ValueError",
      r"expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'lanczos'"),
    C("grid_sample-padding", "pdt.nn.functional.grid_sample(pdt.zeros(1, 1, 3, 3), "
      "pdt.zeros(1, 2, 2, 2), padding_mode='wrap')", "ValueError",
      r"expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'wrap'"),
    C("grid_sample-dtype", "pdt.nn.functional.grid_sample(pdt.zeros(1, 1, 3, 3), "
      "pdt.zeros(1, 2, 2, 2, dtype=pdt.float64), align_corners=False)", "RuntimeError",
      r"expected floating point input and grid of the same dtype, got pydevtensor\.float32 "
      r"and pydevtensor\.float64"),
    C("affine_grid-shape", "pdt.nn.functional.affine_grid(pdt.zeros(1, 2, 3), "
      "(1, 1, 2, 2, 2), align_corners=False)", "ValueError",
      r"Expected a batch of 3D affine matrices of shape Nx3x4 for size \(1, 1, 2, 2, 2\)\. "
      r"Got \(1, 2, 3\) \(on cpu\)\."),
    C("affine_grid-3d-size", "pdt.nn.functional.affine_grid(pdt.zeros(1, 2, 3), (1, 1, 2), "
      "align_corners=False)", "NotImplementedError",
      r"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
      r"respectively\. Got size \(1, 1, 2\)\."),
    C("affine_grid-int", "pdt.nn.functional.affine_grid(pdt.zeros(1, 2, 3, dtype=pdt.int64), "
      "(1, 1, 2, 2), align_corners=False)", "ValueError",
      r"Expected theta to have floating point type, but got pydevtensor\.int64"),
    C("affine_grid-batch", "pdt.nn.functional.affine_grid(pdt.zeros(2, 2, 3), (1, 1, 3, 2), "
      "align_corners=False)", "ValueError", r"affine_grid\(\): theta holds 2 matrices but "
      r"size \(1, 1, 3, 2\) asks for a batch of 1 \(theta on cpu\)"),
    # ---- pixel shuffle (nn/_functional_pixel_shuffle.py)
    C("pixel_shuffle-channels", "pdt.nn.PixelShuffle(2)(pdt.zeros(1, 6, 2, 2))",
      "pydevtensor.InvalidArgumentError", r"pixel_shuffle\(\): expects its input's 'channel' "
      r"dimension to be divisible by the square of upscale_factor, but input\.size\(-3\)=6 "
      r"is not divisible by 4 \(input of shape \(1, 6, 2, 2\) on cpu\)"),
    C("pixel_shuffle-2d", "pdt.nn.functional.pixel_shuffle(t, 1)",
      "pydevtensor.InvalidArgumentError", r"pixel_shuffle\(\): expects input to have at "
      r"least 3 dimensions, but got input of shape \(2, 3\) \(on cpu\)"),
    C("pixel_unshuffle-width", "pdt.nn.PixelUnshuffle(2)(pdt.zeros(1, 1, 4, 5))",
      "pydevtensor.InvalidArgumentError", r"pixel_unshuffle\(\): expects width to be divisible "
      r"by downscale_factor, but input\.size\(-1\)=5 is not divisible by 2"),
    C("PixelShuffle-zero", "pdt.nn.PixelShuffle(0)(pdt.zeros(1, 4, 2, 2))",
      "pydevtensor.InvalidArgumentError", r"expects a positive upscale_factor, but got 0"),
    # ---- local_response_norm and rms_norm (nn/_functional_norm_more.py)
    C("LocalResponseNorm-2d", "pdt.nn.LocalResponseNorm(2)(t)", "ValueError",
      r"local_response_norm\(\): Expected 3D or higher dimensionality input \(got 2 "
      r"dimensions, shape \(2, 3\) on cpu\)"),
    C("local_response_norm-size", "pdt.nn.functional.local_response_norm(pdt.ones(1, 3, 4), "
      "0)", "pydevtensor.InvalidArgumentError",
      r"local_response_norm\(\): size must be positive, got 0"),
    C("CrossMapLRN2d-3d", "pdt.nn.CrossMapLRN2d(3)(pdt.ones(1, 3, 4))", "ValueError",
      r"CrossMapLRN2d: Expected input to be 4D, got 3D instead \(shape \(1, 3, 4\) on cpu\)"),
    C("CrossMapLRN2d-size", "pdt.nn.CrossMapLRN2d(0)", "ValueError",
      r"CrossMapLRN2d: size must be >= 1, got 0"),
    C("SyncBatchNorm-1d", "pdt.nn.SyncBatchNorm(3)(pdt.ones(3))", "ValueError",
      r"SyncBatchNorm: expected at least 2D input \(got 1D input of shape \(3,\) on cpu\)"),
    C("SyncBatchNorm-channels", "pdt.nn.SyncBatchNorm(3)(pdt.ones(2, 4, 5))",
      "pydevtensor.InvalidArgumentError", r"SyncBatchNorm: expected 3 features \(dimension 1 "
      r"of the input\), got 4 in an input of shape \(2, 4, 5\) \(on cpu\)"),
    C("SyncBatchNorm-one-value", "pdt.nn.SyncBatchNorm(3)(pdt.ones(1, 3, 1, 1))", "ValueError",
      r"SyncBatchNorm: Expected more than 1 value per channel when training, got input size "
      r"\(1, 3, 1, 1\)"),
    C("RMSNorm-shape", "pdt.nn.RMSNorm(4)(t)", "pydevtensor.InvalidArgumentError",
      r"RMSNorm: expected an input of shape \(\*, 4\) \(normalized_shape=\(4,\)\), got "
      r"\(2, 3\) \(on cpu\)"),
    C("rms_norm-weight", "pdt.nn.functional.rms_norm(t, 3, pdt.ones(2))",
      "pydevtensor.InvalidArgumentError", r"rms_norm\(\): Expected weight to be of same shape "
      r"as normalized_shape, but got weight of shape \(2,\) and normalized_shape=\(3,\)"),
    C("rms_norm-int", "pdt.nn.functional.rms_norm(ti, 3)", "TypeError",
      r"rms_norm\(\): input must be floating point, got pydevtensor\.int"),
    C("RMSNorm-eps", "pdt.nn.RMSNorm(3, eps=-1e-5)", "ValueError",
      r"RMSNorm: eps must be a number >= 0, got -1e-05"),
]
