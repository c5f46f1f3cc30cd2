/* cpu_vpow_tables.h - the tables of the float32 powers (Note [float32 powers],
 * cpu_vpow.h).  Written by tools/gen_vpow_tables.py; do not edit. */
#ifndef PDT_CPU_VPOW_TABLES_H
#define PDT_CPU_VPOW_TABLES_H
/* The script's layout, which tests/test_vmath.py compares: */
/* clang-format off */

#define PDT_POW_OFF 0x3f420000u /* log's reduction: z in [OFF, 2 OFF) */

/* 1 / c_j, c_j the centre of log interval j, rounded to float32 (1 for the one
 * holding 1.0) */
static const double pdt_pow_invc[32] = {
    0x1.4e5e0a0000000p+0, 0x1.47ae140000000p+0, 0x1.4141420000000p+0, 0x1.3b13b20000000p+0,
    0x1.3521d00000000p+0, 0x1.2f684c0000000p+0, 0x1.29e4120000000p+0, 0x1.24924a0000000p+0,
    0x1.1f70480000000p+0, 0x1.1a7b960000000p+0, 0x1.15b1e60000000p+0, 0x1.1111120000000p+0,
    0x1.0c97140000000p+0, 0x1.0842100000000p+0, 0x1.0410420000000p+0, 0x1.0000000000000p+0,
    0x1.f07c200000000p-1, 0x1.e1e1e20000000p-1, 0x1.d41d420000000p-1, 0x1.c71c720000000p-1,
    0x1.bacf920000000p-1, 0x1.af286c0000000p-1, 0x1.a41a420000000p-1, 0x1.99999a0000000p-1,
    0x1.8f9c180000000p-1, 0x1.8618620000000p-1, 0x1.7d05f40000000p-1, 0x1.745d180000000p-1,
    0x1.6c16c20000000p-1, 0x1.642c860000000p-1, 0x1.5c98820000000p-1, 0x1.5555560000000p-1};

/* -log(invc_j), rounded to double */
static const double pdt_pow_logc[32] = {
    -0x1.1178e6c27e478p-2, -0x1.f991c3cb3b370p-3, -0x1.d10383e655e65p-3, -0x1.a93ed8c8ad9cap-3,
    -0x1.823c18551a3bep-3, -0x1.5bf407b543db1p-3, -0x1.365fc6c159004p-3, -0x1.1178ee227e458p-3,
    -0x1.da727838446a0p-4, -0x1.9335e4d594988p-4, -0x1.4d31165207eacp-4, -0x1.08599959e39a5p-4,
    -0x1.894a8349fb262p-5, -0x1.0415c89e74404p-5, -0x1.0205a38935667p-6, 0x0.0p+0,
    0x1.f82990e783380p-6, 0x1.f0a30a01162a7p-5, 0x1.6f0d272e56b4dp-4, 0x1.e27074e2af2e8p-4,
    0x1.29552c41ff52ep-3, 0x1.5ff3060a793d5p-3, 0x1.9525a80f456b8p-3, 0x1.c8ff7a79a9a26p-3,
    0x1.fb918bd5e3e44p-3, 0x1.1675c97aba611p-2, 0x1.2e8e2bee11d31p-2, 0x1.4618ba21c5ecap-2,
    0x1.5d1bda55809d0p-2, 0x1.739d7e2bbd00ap-2, 0x1.89a33a8c14264p-2, 0x1.9f323ccbf9854p-2};

/* 2^(j / 32), rounded to double */
static const double pdt_pow_exp2[32] = {
    0x1.0000000000000p+0, 0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0,
    0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0, 0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0,
    0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0, 0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
    0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0, 0x1.6247eb03a5585p+0,
    0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0, 0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
    0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0,
    0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0,
    0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0, 0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0};

/* clang-format on */
#endif
