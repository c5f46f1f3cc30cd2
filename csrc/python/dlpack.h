/* dlpack.h - the DLPack exchange structures, written for pydevtensor from the
 * DLPack specification (https://dmlc.github.io/dlpack/latest/, ABI 1.x), with
 * only the parts pydevtensor uses.  The layouts below are the ABI: field order
 * and widths must not change.
 *
 * Two capsule flavours travel through Python:
 *   "dltensor"            holds a DLManagedTensor (the legacy, unversioned ABI);
 *   "dltensor_versioned"  holds a DLManagedTensorVersioned (DLPack >= 1.0),
 *                         given only to consumers that ask with max_version.
 * A consumer that takes ownership renames the capsule to "used_dltensor" /
 * "used_dltensor_versioned" and later calls the deleter; a capsule destroyed
 * while still carrying its original name calls the deleter itself.
 */
#ifndef PDT_DLPACK_H
#define PDT_DLPACK_H

#include <stdint.h>

#define PDT_DLPACK_MAJOR 1 /* the ABI major version these structs follow */
#define PDT_DLPACK_MINOR 1

#define PDT_DLPACK_CAPSULE "dltensor"
#define PDT_DLPACK_CAPSULE_USED "used_dltensor"
#define PDT_DLPACK_VERSIONED_CAPSULE "dltensor_versioned"
#define PDT_DLPACK_VERSIONED_CAPSULE_USED "used_dltensor_versioned"

/* A version pair; a consumer accepts a tensor whose major equals its own. */
typedef struct DLPackVersion {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* Where the data lives (DLDevice.device_type).  Only some are listed. */
typedef enum DLDeviceType {
    kDLCPU = 1,      /* host memory                                    */
    kDLCUDA = 2,     /* CUDA device memory                             */
    kDLCUDAHost = 3, /* page-locked host memory from cudaMallocHost    */
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13, /* CUDA managed (unified) memory                  */
    kDLOneAPI = 14,
} DLDeviceType;

typedef struct DLDevice {
    DLDeviceType device_type;
    int32_t device_id; /* the CUDA ordinal; 0 for the CPU */
} DLDevice;

/* DLDataType.code.  Only some are listed. */
typedef enum DLDataTypeCode {
    kDLInt = 0,   /* signed integer     */
    kDLUInt = 1,  /* unsigned integer   */
    kDLFloat = 2, /* IEEE floating point */
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6, /* bool, stored in `bits` (8 for a byte-per-bool layout) */
} DLDataTypeCode;

/* An element type: code, bits per lane, lanes (1 for scalars). */
typedef struct DLDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/* A strided view, not owning its memory.
 * data: base address (a device address for kDLCUDA); the first element is at
 *       data + byte_offset.
 * shape: (ndim,) sizes.
 * strides: (ndim,) strides in elements (not bytes), or NULL for the compact
 *          row-major layout. */
typedef struct DLTensor {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

/* The legacy managed tensor: dl_tensor first, then the owner's context and the
 * function that frees everything (may be NULL: nothing to free). */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* DLManagedTensorVersioned.flags */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0) /* the consumer must not write   */
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1) /* the producer copied the data */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

/* The versioned managed tensor (DLPack >= 1.0): the version comes first so a
 * consumer can check it before reading anything else; dl_tensor comes last. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* The enums are stored as 32-bit ints in the ABI. */
_Static_assert(sizeof(DLDeviceType) == 4, "DLDeviceType must be 32 bits wide");
_Static_assert(sizeof(DLDevice) == 8, "DLDevice must be 8 bytes");
_Static_assert(sizeof(DLDataType) == 4, "DLDataType must be 4 bytes");

#endif /* PDT_DLPACK_H */
