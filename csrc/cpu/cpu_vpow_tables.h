/* cpu_vpow_tables.h - the tables of the float32 powers (Note [float32 powers
 * with tables], cpu_vpow.h).  Written by tools/gen_vpow_tables.py; do not edit. */
#ifndef PDT_CPU_VPOW_TABLES_H
#define PDT_CPU_VPOW_TABLES_H
/* The script's layout, which tests/test_vmath.py compares: */
/* clang-format off */

#define PDT_POW_OFF 0x3f440000u /* log2's reduction: z in [OFF, 2 OFF) */
#define PDT_POW_LOG_SHIFT 19 /* z's interval: bits >> SHIFT, mod 16 */

/* 1 / c_j, c_j the centre of log interval j, rounded to float32 (1 for the one
 * holding 1.0) */
static const double pdt_pow_invc[16] = {
    0x1.47ae140000000p+0, 0x1.3b13b20000000p+0, 0x1.2f684c0000000p+0, 0x1.24924a0000000p+0,
    0x1.1a7b960000000p+0, 0x1.1111120000000p+0, 0x1.0842100000000p+0, 0x1.0000000000000p+0,
    0x1.e1e1e20000000p-1, 0x1.c71c720000000p-1, 0x1.af286c0000000p-1, 0x1.99999a0000000p-1,
    0x1.8618620000000p-1, 0x1.745d180000000p-1, 0x1.642c860000000p-1, 0x1.5555560000000p-1};

/* -log2(invc_j), rounded to double */
static const double pdt_pow_logc[16] = {
    -0x1.6cb0f45c5ddccp-2, -0x1.32bff1d2620d3p-2, -0x1.f5fd8c01b8598p-3, -0x1.8a898953f695dp-3,
    -0x1.22dadb72090e4p-3, -0x1.7d605d9f9a247p-4, -0x1.773935884e226p-5, 0x0.0p+0,
    0x1.663f6e3b3cbb2p-4, 0x1.5c01a22e68f24p-3, 0x1.fbc16a1ed20a6p-3, 0x1.49a7834b7d429p-2,
    0x1.91bba6c447dcfp-2, 0x1.d6753b2085b50p-2, 0x1.0c104f268ee09p-1, 0x1.2b803302a3372p-1};

/* 2^(j / 16), rounded to double */
static const double pdt_pow_exp2[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};

/* log2(1 + r)'s Taylor coefficients: (-1)^(i+1) / (i ln2), i = 1 .. 10 */
static const double pdt_pow_log2c[10] = {
    0x1.71547652b82fep+0, -0x1.71547652b82fep-1, 0x1.ec709dc3a03fdp-2, -0x1.71547652b82fep-2,
    0x1.2776c50ef9bfep-2, -0x1.ec709dc3a03fdp-3, 0x1.a61762a7aded9p-3, -0x1.71547652b82fep-3,
    0x1.484b13d7c02a9p-3, -0x1.2776c50ef9bfep-3};

/* 2^s - 1's Taylor coefficients: ln2^i / i!, i = 1 .. 6 */
static const double pdt_pow_exp2c[6] = {
    0x1.62e42fefa39efp-1, 0x1.ebfbdff82c58fp-3, 0x1.c6b08d704a0c0p-5, 0x1.3b2ab6fba4e77p-7,
    0x1.5d87fe78a6731p-10, 0x1.430912f86c787p-13};

/* clang-format on */
#endif
