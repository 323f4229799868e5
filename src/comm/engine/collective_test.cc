// Tests of the collective table, the data patterns and their expected results (against a host simulation
// written from each collective's definition), exactness in half/bfloat16, and the host-side checker.
#include "comm/engine/collective.h"

#include <gtest/gtest.h>

#include <vector>

#include "comm/engine/dtype.h"
#include "comm/engine/host_data.h"
#include "comm/engine/pattern.h"

namespace dd::comm {

TEST(CollectiveTable, BusbwFactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(coll_info(Coll::all_reduce).busbw_factor(8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(coll_info(Coll::all_gather).busbw_factor(8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(coll_info(Coll::reduce_scatter).busbw_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(coll_info(Coll::alltoall).busbw_factor(4), 0.75);
  EXPECT_DOUBLE_EQ(coll_info(Coll::broadcast).busbw_factor(8), 1.0);
  EXPECT_DOUBLE_EQ(coll_info(Coll::reduce).busbw_factor(8), 1.0);
  EXPECT_DOUBLE_EQ(coll_info(Coll::sendrecv).busbw_factor(8), 1.0);
  // 1 GB moved in 10 ms by all_reduce on 2 ranks: algbw 100 GB/s, busbw 100 GB/s.
  EXPECT_DOUBLE_EQ(busbw_gbps(Coll::all_reduce, 2, 1000000000, 0.01), 100.0);
  EXPECT_DOUBLE_EQ(busbw_gbps(Coll::all_reduce, 4, 1000000000, 0.01), 150.0);
}

TEST(CollectiveTable, SizingAndInPlaceOffsets) {
  Sizing g = coll_info(Coll::all_gather).size(1 << 20, 4, 4, 3);
  EXPECT_EQ(g.send_count, 65536u);
  EXPECT_EQ(g.recv_count, 262144u);
  EXPECT_EQ(g.bytes, 1u << 20);
  EXPECT_EQ(g.inplace_send_offset, 3u * 65536);
  Sizing rs = coll_info(Coll::reduce_scatter).size(1 << 20, 2, 4, 2);
  EXPECT_EQ(rs.recv_count, 131072u);
  EXPECT_EQ(rs.send_count, 524288u);
  EXPECT_EQ(rs.inplace_check_offset, 2u * 131072);
  Sizing a = coll_info(Coll::alltoall).size(1000, 4, 3, 0);  // 250 elements -> 83 per peer
  EXPECT_EQ(a.chunk, 83u);
  EXPECT_EQ(a.send_count, 249u);
  EXPECT_EQ(a.bytes, 996u);
  EXPECT_EQ(coll_from_name("allreduce"), Coll::all_reduce);
  EXPECT_EQ(coll_from_name("all-gather"), Coll::all_gather);
  EXPECT_FALSE(coll_from_name("gather").has_value());
}

// The buffers of an in-place run hold the input and the output (nccl-tests: reduce_scatter in-place
// recvbuff = sendbuff + rank*recvcount; all_gather in-place sendbuff = recvbuff + rank*sendcount).
TEST(CollectiveTable, InPlaceBufferHoldsInputAndOutput) {
  const int n = 2;
  for (const auto& ci : collectives())
    for (int rank = 0; rank < n; ++rank) {
      Sizing s = ci.size(1 << 20, 4, n, rank);
      BufferNeed ip = buffer_need(s, true), op = buffer_need(s, false);
      EXPECT_EQ(ip.send, 0u) << ci.name;
      EXPECT_GE(ip.recv, s.inplace_send_offset + s.send_count) << ci.name;
      EXPECT_GE(ip.recv, s.inplace_check_offset + s.check_count) << ci.name;
      EXPECT_EQ(op.send, s.send_count) << ci.name;
      EXPECT_EQ(op.recv, s.recv_count) << ci.name;
      EXPECT_TRUE(ci.has_in_place) << ci.name;  // nccl-tests prints an in-place column for all of them
    }
  // The 2-GPU crash: in-place reduce_scatter reads n chunks from the receive buffer, not one.
  Sizing rs = coll_info(Coll::reduce_scatter).size(2ull << 30, 4, 2, 1);
  EXPECT_EQ(rs.recv_count, (1ull << 30) / 4);
  EXPECT_EQ(buffer_need(rs, true).recv, (2ull << 30) / 4);
  EXPECT_EQ(buffer_need(coll_info(Coll::all_gather).size(2ull << 30, 4, 2, 1), true).recv, (2ull << 30) / 4);
  EXPECT_FALSE(coll_info(Coll::alltoall).in_place_checked);
  EXPECT_FALSE(coll_info(Coll::sendrecv).in_place_checked);
  EXPECT_TRUE(coll_info(Coll::reduce_scatter).in_place_checked);
}

// Host simulation of each collective from its definition, over the ranks' inputs.
static std::vector<std::vector<int>> simulate(Coll c, int n, uint64_t chunk, int root) {
  const CollInfo& ci = coll_info(c);
  Sizing s = ci.size(chunk * n * 4, 4, n, 0);
  std::vector<std::vector<int>> in(n), out(n);
  for (int r = 0; r < n; ++r)
    for (uint64_t i = 0; i < s.send_count; ++i) in[r].push_back(input_value(c, r, i));
  for (int r = 0; r < n; ++r) {
    auto& o = out[r];
    o.assign(s.recv_count, kPoison);
    switch (c) {
      case Coll::all_reduce:
      case Coll::reduce:
        if (c == Coll::reduce && r != root) break;
        for (uint64_t i = 0; i < s.recv_count; ++i) {
          o[i] = 0;
          for (int k = 0; k < n; ++k) o[i] += in[k][i];
        }
        break;
      case Coll::all_gather:
        for (int k = 0; k < n; ++k)
          for (uint64_t i = 0; i < s.chunk; ++i) o[k * s.chunk + i] = in[k][i];
        break;
      case Coll::reduce_scatter:
        for (uint64_t i = 0; i < s.chunk; ++i) {
          o[i] = 0;
          for (int k = 0; k < n; ++k) o[i] += in[k][r * s.chunk + i];
        }
        break;
      case Coll::broadcast:
        o = in[root];
        break;
      case Coll::alltoall:
        for (int k = 0; k < n; ++k)
          for (uint64_t i = 0; i < s.chunk; ++i) o[k * s.chunk + i] = in[k][r * s.chunk + i];
        break;
      case Coll::sendrecv:
        o = in[(r - 1 + n) % n];
        break;
    }
  }
  return out;
}

TEST(Pattern, ExpectedValuesMatchSimulatedCollectives) {
  for (const auto& ci : collectives())
    for (int n : {1, 2, 3, 5, 8, 13}) {
      const uint64_t chunk = 37;
      auto sim = simulate(ci.coll, n, chunk, 0);
      Sizing s = ci.size(chunk * n * 4, 4, n, 0);
      for (int r = 0; r < n; ++r) {
        ExpectCtx x{ci.coll, r, n, 0, (r - 1 + n) % n, s.chunk};
        for (uint64_t i = 0; i < s.check_count; ++i) {
          bool checked;
          int e = expected_value(x, i, &checked);
          if (!checked) continue;
          ASSERT_EQ(e, sim[r][i]) << ci.name << " n=" << n << " rank " << r << " i=" << i;
        }
      }
    }
}

TEST(Pattern, ChunksFromDifferentRanksDiffer) {
  // A chunk delivered from the wrong rank must be caught: wide values differ between ranks at each index.
  for (int a = 0; a < 16; ++a)
    for (int b = a + 1; b < 16; ++b) {
      int same = 0;
      for (uint64_t i = 0; i < 64; ++i) same += wide_value(a, i) == wide_value(b, i);
      EXPECT_EQ(same, 0) << a << " vs " << b;
    }
}

TEST(Pattern, SumsExactInHalfAndBfloat16) {
  for (int n : {1, 2, 7, 64, kMaxExactBf16Ranks}) {
    for (uint64_t i = 0; i < 10; ++i) {
      float partial = 0;
      for (int k = 0; k < n; ++k) {
        partial += float(narrow_value(k, i));
        EXPECT_EQ(bf16_to_float(float_to_bf16(partial)), partial);
        EXPECT_EQ(half_to_float(float_to_half(partial)), partial);
      }
      EXPECT_EQ(int(partial), narrow_sum(n, i));
    }
  }
  for (uint64_t i = 0; i < 251; ++i) {
    float w = float(wide_value(3, i));
    EXPECT_EQ(bf16_to_float(float_to_bf16(w)), w);
  }
  EXPECT_EQ(bf16_to_float(float_to_bf16(float(kPoison))), float(kPoison));
  EXPECT_EQ(half_to_float(float_to_half(0.5f)), 0.5f);
  EXPECT_EQ(half_to_float(float_to_half(-65504.f)), -65504.f);
}

TEST(HostData, CheckerCountsEveryWrongElement) {
  for (Dtype t : kAllDtypes) {
    const uint64_t n = 1000;
    std::vector<char> buf(n * dtype_size(t));
    ExpectCtx x{Coll::broadcast, 1, 4, 0, 0, n};
    host_fill_input(t, buf.data(), n, Coll::broadcast, 0);  // root 0's data = the expected output
    EXPECT_EQ(host_check(t, buf.data(), n, x), 0) << dtype_name(t);
    int64_t first = -1;
    EXPECT_EQ(host_check(t, buf.data(), n, x, &first), 0) << dtype_name(t);
    EXPECT_EQ(first, -1) << dtype_name(t);  // untouched when nothing is wrong
    host_fill_const(t, buf.data() + 10 * dtype_size(t), 3, kPoison);
    EXPECT_EQ(host_check(t, buf.data(), n, x, &first), 3) << dtype_name(t);
    EXPECT_EQ(first, 10) << dtype_name(t);
    host_fill_const(t, buf.data(), n, kPoison);
    EXPECT_EQ(host_check(t, buf.data(), n, x), int64_t(n)) << dtype_name(t);
  }
}

TEST(HostData, SumOfTwoBuffers) {
  for (Dtype t : kAllDtypes) {
    std::vector<char> a(8 * dtype_size(t)), b(a.size()), o(a.size());
    host_fill_input(t, a.data(), 8, Coll::all_reduce, 0);
    host_fill_input(t, b.data(), 8, Coll::all_reduce, 1);
    host_sum(t, o.data(), a.data(), b.data(), 8);
    for (uint64_t i = 0; i < 8; ++i)
      EXPECT_EQ(host_get(t, o.data(), i), double(narrow_sum(2, i))) << dtype_name(t);
  }
}

}  // namespace dd::comm
