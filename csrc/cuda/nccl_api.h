/* nccl_api.h - the part of NCCL's C API that pydevtensor uses, declared here so
 * that the CUDA backend builds without <nccl.h> (the GPU image may not have it:
 * libnccl.so.2 is dlopen()ed at run time, see cuda_nccl.c).  The emulated NCCL
 * (emulator/emu_nccl.cpp) implements these same declarations.
 *
 * Types, values and signatures follow the NCCL documentation (NCCL User Guide,
 * "API" chapter); the numeric values are ABI and must equal those of NCCL 2.x's
 * nccl.h (checked against NCCL 2.28.9's nccl.h from the CUDA 13 toolkit).
 * Only what is used is declared: add here, with the section, before using more.
 */
#ifndef PDT_NCCL_API_H
#define PDT_NCCL_API_H

#include <stddef.h>

#include <cuda_runtime_api.h> /* cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- NCCL API: Types ("ncclComm_t", "ncclResult_t", "ncclDataType_t",
 * "ncclRedOp_t") */

/* "ncclComm_t: NCCL communicator. Points to an opaque structure inside NCCL." */
typedef struct ncclComm *ncclComm_t;

/* "ncclResult_t: Return values for all NCCL functions." */
typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

/* "ncclDataType_t: NCCL defines the following integral and floating data-types." */
typedef enum {
    ncclInt8 = 0,
    ncclChar = 0,
    ncclUint8 = 1,
    ncclInt32 = 2,
    ncclInt = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6,
    ncclHalf = 6,
    ncclFloat32 = 7,
    ncclFloat = 7,
    ncclFloat64 = 8,
    ncclDouble = 8,
    ncclBfloat16 = 9,
    ncclFloat8e4m3 = 10,
    ncclFloat8e5m2 = 11,
    ncclNumTypes = 12
} ncclDataType_t;

/* "ncclRedOp_t: Defines the reduction operation."  ncclMaxRedOp keeps the enum
 * int-sized, as nccl.h does (values >= ncclNumOps are user-created operators). */
typedef enum {
    ncclSum = 0,
    ncclProd = 1,
    ncclMax = 2,
    ncclMin = 3,
    ncclAvg = 4,
    ncclNumOps = 5,
    ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

/* "ncclUniqueId: ... an opaque structure used to identify a communicator",
 * NCCL_UNIQUE_ID_BYTES (128) bytes, made by one rank and passed to the others. */
#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

/* ---- NCCL API: Communicator Creation and Management Functions */

/* "ncclGetUniqueId: Generates an Id to be used in ncclCommInitRank.
 * ncclGetUniqueId should be called once by a single rank and the Id should be
 * distributed to all ranks in the communicator before using it." */
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
/* "ncclCommInitRank: Creates a new communicator (multi thread/process version).
 * rank must be between 0 and nranks-1 and unique within a communicator clique.
 * Each rank is associated to a CUDA device, which has to be set before calling
 * ncclCommInitRank." */
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);

/* "ncclGetVersion: The NCCL_VERSION_CODE of the NCCL library in *version." */
ncclResult_t ncclGetVersion(int *version);
/* "ncclCommInitAll: Creates a clique of communicators (single process version)
 * ... If devlist is NULL, the first ndev CUDA devices are used." */
ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist);
/* "ncclCommDestroy: Destroy a communicator object comm." */
ncclResult_t ncclCommDestroy(ncclComm_t comm);
/* "ncclGetErrorString: Returns a human-readable string corresponding to the
 * passed error code." */
const char *ncclGetErrorString(ncclResult_t result);

/* ---- NCCL API: Collective Communication Functions */

/* "ncclAllReduce: Reduces data arrays of length count in sendbuff using the op
 * operation and leaves identical copies of the result in each recvbuff.
 * In-place operation will happen if sendbuff == recvbuff." */
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream);

/* "ncclBroadcast: Copies count elements from sendbuff on the root rank to all
 * ranks' recvbuff. sendbuff is only used on rank root and ignored for other
 * ranks. In-place operation will happen if sendbuff == recvbuff." */
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream);
/* "ncclAllGather: Gathers sendcount values from all GPUs into recvbuff,
 * receiving data from rank i at offset i*sendcount." */
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);
/* "ncclReduceScatter: Reduces data in sendbuff using the op operation and
 * leaves reduced result scattered over the devices so that the recvbuff on rank
 * i will contain the i-th block of the result." */
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream);

/* "ncclReduce: Reduces data arrays of length count in sendbuff into recvbuff
 * using op operation. recvbuff may be NULL on all calls except for root
 * device. root is the rank where data will reside after the operation is
 * complete. In-place operation will happen if sendbuff == recvbuff." */
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream);

/* ---- NCCL API: Point To Point Communication Functions (since NCCL 2.7) */

/* "ncclSend: Send data from sendbuff to rank peer. Rank peer needs to call
 * ncclRecv with the same datatype and the same count as this rank. This
 * operation is blocking for the GPU. If multiple ncclSend() and ncclRecv()
 * operations need to progress concurrently to complete, they must be fused
 * within a ncclGroupStart()/ ncclGroupEnd() section." */
ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream);
/* "ncclRecv: Receive data from rank peer into recvbuff. Rank peer needs to
 * call ncclSend with the same datatype and the same count as this rank."
 * (blocking for the GPU, fused in a group as ncclSend) */
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream);

/* ---- NCCL API: Group Calls ("ncclGroupStart", "ncclGroupEnd"): a thread that
 * drives several devices must put their calls of one collective in a group. */

ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

#ifdef __cplusplus
}
#endif

#endif /* PDT_NCCL_API_H */
