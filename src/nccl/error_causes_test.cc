// Tests of the collective error table: NCCL and CUDA strings map to their finding ids.
#include "nccl/error_causes.h"

#include <gtest/gtest.h>

namespace dd::nccl {

TEST(ErrorCauses, MessagesAndWarningsMapToFindingIds) {
  EXPECT_EQ(classify_comm_error("init failed", {"Duplicate GPU detected : rank 1 and rank 0"}).id,
            "comm.gpu.duplicate");
  EXPECT_EQ(classify_comm_error("CUDA error: invalid device ordinal", {}).id, "comm.gpu.too_few");
  EXPECT_EQ(classify_comm_error("Bootstrap : no socket interface found", {}).id, "comm.net.no_interface");
  EXPECT_EQ(classify_comm_error("cannot load NCCL: libnccl.so.2: not found", {}).id, "comm.nccl.missing");
  EXPECT_EQ(classify_comm_error("Gloo connectFullMesh: Connection refused", {}).id, "comm.net.connect");
  EXPECT_EQ(classify_comm_error("something else", {}).id, "comm.error");
  EXPECT_FALSE(error_cause("comm.gpu.too_few").fix.empty());
}

}  // namespace dd::nccl
