/* cpu_vtanh_table.h - the table of float32 tanh's polynomials (Note [tanh by a
 * table of polynomials], cpu_vmathf.h).  Written by tools/gen_vtanh_table.py; do
 * not edit. */
#ifndef PDT_CPU_VTANH_TABLE_H
#define PDT_CPU_VTANH_TABLE_H
/* clang-format off */

#define PDT_TANH_BASE 491 /* interval (bits(|x|) >> 21) - BASE, at least 0 */
#define PDT_TANH_CLAMP 0x1.205968p+3f /* |x| is clamped to it: tanh rounds to 1 */

static const float pdt_tanh_table[7][32] = {
    /* b_j: y = |x| - b_j */
    {0.0f, 0x1.1fff84p-4f, 0x1.5ffff6p-4f, 0x1.a0003p-4f, 0x1.dfff9cp-4f, 0x1.2000dep-3f, 0x1.5fffe2p-3f, 0x1.9fff9ap-3f,
     0x1.e0061ep-3f, 0x1.1ffe3ap-2f, 0x1.600068p-2f, 0x1.9fff82p-2f, 0x1.e000eap-2f, 0x1.2000dcp-1f, 0x1.600038p-1f, 0x1.9fff5ep-1f,
     0x1.dfffbp-1f, 0x1.20009ap+0f, 0x1.5fffdap+0f, 0x1.9fffbp+0f, 0x1.e00076p+0f, 0x1.1ffe8p+1f, 0x1.5ffe74p+1f, 0x1.a0006ep+1f,
     0x1.e001ecp+1f, 0x1.2000dcp+2f, 0x1.6005ecp+2f, 0x1.9fef5ep+2f, 0x1.e01f3ep+2f, 0x1.104bf2p+3f, 0.0f, 0.0f},
    /* c0_j: the coefficient of y^0 */
    {0.0f, 0x1.1f8642p-4f, 0x1.5f22c8p-4f, 0x1.9e9386p-4f, 0x1.ddd03p-4f, 0x1.1e1eaap-3f, 0x1.5c92eap-3f, 0x1.9a5ebap-3f,
     0x1.d76c28p-3f, 0x1.18a1f6p-2f, 0x1.52c322p-2f, 0x1.8a8776p-2f, 0x1.bfaf28p-2f, 0x1.050912p-1f, 0x1.315804p-1f, 0x1.5788a6p-1f,
     0x1.77d814p-1f, 0x1.9e5d2p-1f, 0x1.c27894p-1f, 0x1.d9c6e4p-1f, 0x1.e878b4p-1f, 0x1.f4bf94p-1f, 0x1.fbd4fp-1f, 0x1.fe767cp-1f,
     0x1.ff6f1cp-1f, 0x1.ffdfa8p-1f, 0x1.fffbap-1f, 0x1.ffff68p-1f, 0x1.ffffecp-1f, 0x1.fffffep-1f, 0.0f, 0.0f},
    /* c1_j: the coefficient of y^1 */
    {0x1p+0f, 0x1.fd7a24p-1f, 0x1.fc3ccp-1f, 0x1.fac13ep-1f, 0x1.f9085ep-1f, 0x1.f601bcp-1f, 0x1.f12b02p-1f, 0x1.eb7164p-1f,
     0x1.e4df06p-1f, 0x1.d98baap-1f, 0x1.c7f704p-1f, 0x1.b3ff58p-1f, 0x1.9e235cp-1f, 0x1.7aea4p-1f, 0x1.49e694p-1f, 0x1.198046p-1f,
     0x1.d8354p-2f, 0x1.614eaap-2f, 0x1.cea7bep-3f, 0x1.265edep-3f, 0x1.6fce64p-4f, 0x1.6418b2p-5f, 0x1.09ae08p-6f, 0x1.88ecdp-8f,
     0x1.219f06p-9f, 0x1.02b9c2p-11f, 0x1.180126p-14f, 0x1.300048p-17f, 0x1.4735a8p-20f, 0x1.5d15b6p-23f, 0.0f, 0.0f},
    /* c2_j: the coefficient of y^2 */
    {0.0f, -0x1.1e1d12p-4f, -0x1.5c8cd2p-4f, -0x1.9a561cp-4f, -0x1.d74ce2p-4f, -0x1.1888bp-3f, -0x1.52796cp-3f, -0x1.89e4d2p-3f,
     -0x1.be7108p-3f, -0x1.038e2ap-2f, -0x1.2dafdap-2f, -0x1.4ff6eep-2f, -0x1.6a1d98p-2f, -0x1.825e3ap-2f, -0x1.897d2ap-2f, -0x1.79c12ep-2f,
     -0x1.5aa25ep-2f, -0x1.1def62p-2f, -0x1.970efcp-3f, -0x1.10653ap-3f, -0x1.5ee77ap-4f, -0x1.5c42d6p-5f, -0x1.07807ep-6f, -0x1.87b7d6p-8f,
     -0x1.214778p-9f, -0x1.0256d2p-11f, -0x1.17a69ep-14f, -0x1.2f8c9ap-17f, -0x1.b620dap-20f, -0x1.b710d8p-21f, 0.0f, 0.0f},
    /* c3_j: the coefficient of y^3 */
    {-0x1.55553ep-2f, -0x1.4fc7eep-2f, -0x1.4cc8d8p-2f, -0x1.494394p-2f, -0x1.44a2fcp-2f, -0x1.3b2aaep-2f, -0x1.2ea4b6p-2f, -0x1.2064cap-2f,
     -0x1.0f8974p-2f, -0x1.e925d2p-3f, -0x1.982e06p-3f, -0x1.426c26p-3f, -0x1.d771c2p-4f, -0x1.bced5ep-5f, 0x1.d783d2p-7f, 0x1.071p-4f,
     0x1.842556p-4f, 0x1.c68fcp-4f, 0x1.97d814p-4f, 0x1.33df78p-4f, 0x1.a859f8p-5f, 0x1.bbd82cp-6f, 0x1.599beep-7f, 0x1.03938ap-8f,
     0x1.80da3ep-10f, 0x1.58419p-12f, 0x1.74cb38p-15f, 0x1.94cb3ap-18f, 0x1.b0957cp-21f, 0x1.7d113p-24f, 0.0f, 0.0f},
    /* c4_j: the coefficient of y^4 */
    {0.0f, 0x1.2c583cp-4f, 0x1.d2c914p-6f, 0x1.97f54p-4f, 0x1.7a2888p-6f, 0x1.5f076ep-4f, 0x1.a0b956p-4f, 0x1.f0bf6ap-4f,
     0x1.0790acp-3f, 0x1.32dd3ap-3f, 0x1.503692p-3f, 0x1.5cc28ep-3f, 0x1.58c412p-3f, 0x1.39fba4p-3f, 0x1.e96f86p-4f, 0x1.47754p-4f,
     0x1.63a4ap-5f, 0x1.e0c8eep-9f, -0x1.59f2b6p-6f, -0x1.9bb0eap-6f, -0x1.55a004p-6f, -0x1.95df9p-7f, -0x1.515df4p-8f, -0x1.033e66p-9f,
     -0x1.838fcp-11f, -0x1.688fap-13f, -0x1.86cbf2p-16f, -0x1.a962d4p-19f, 0x1.47b3a6p-20f, 0x1.4e5ee8p-19f, 0.0f, 0.0f},
    /* c5_j: the coefficient of y^5 */
    {0x1.107866p-3f, 0x1.c1490cp+3f, 0x1.0db07ep+4f, 0x1.627018p+4f, 0x1.36fdfep+4f, 0x1.6f13c4p-2f, 0x1.a444bcp-4f, 0x1.a16896p-1f,
     -0x1.c60d4cp-1f, 0x1.10bea8p-4f, -0x1.f9b79ep-6f, -0x1.28a046p-9f, 0x1.7da0f4p-5f, -0x1.71cb58p-5f, -0x1.fb19c4p-5f, -0x1.d73ffcp-5f,
     -0x1.9be276p-5f, -0x1.0745a2p-5f, -0x1.37f536p-7f, 0x1.6e18dp-10f, 0x1.2e8cc8p-8f, 0x1.049162p-8f, 0x1.f64702p-10f, 0x1.946312p-11f,
     0x1.33272p-12f, 0x1.1faedp-14f, 0x1.38a68p-17f, 0x1.530ebep-20f, 0x1.d66668p-23f, 0x1.7711p-23f, 0.0f, 0.0f}};
/* clang-format on */
#endif
