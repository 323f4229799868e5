// Tests of the last-traceback finder: plain, chained, rank-prefixed, interleaved and torch multi-line errors.
#include "logs/python_traceback.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t p = 0;
  for (size_t nl; (nl = text.find('\n', p)) != std::string::npos; p = nl + 1)
    out.push_back(text.substr(p, nl - p));
  if (p < text.size()) out.push_back(text.substr(p));
  return out;
}

TEST(PythonTraceback, NoneWhenNoHeader) {
  EXPECT_EQ(last_python_traceback({}), "");
  EXPECT_EQ(last_python_traceback({"epoch 1 loss 0.3", "ValueError: not in a traceback"}), "");
  EXPECT_EQ(traceback_exception(""), "");
}

TEST(PythonTraceback, SimpleBlockEndsAtTheExceptionLine) {
  const auto lines = split_lines(
      "step 10 loss 2.31\n"
      "Traceback (most recent call last):\n"
      "  File \"/job/train.py\", line 41, in <module>\n"
      "    main()\n"
      "  File \"/job/train.py\", line 37, in main\n"
      "    x = model(batch).view(8, -1)\n"
      "        ^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "RuntimeError: shape '[8, -1]' is invalid for input of size 15\n"
      "\n"
      "exiting\n");
  const std::string tb = last_python_traceback(lines);
  EXPECT_EQ(tb.rfind("Traceback (most recent call last):", 0), 0u);
  EXPECT_NE(tb.find("line 37, in main"), std::string::npos);
  EXPECT_EQ(tb.substr(tb.rfind('\n') + 1), "RuntimeError: shape '[8, -1]' is invalid for input of size 15");
  EXPECT_EQ(tb.find("exiting"), std::string::npos);
  EXPECT_EQ(tb.find("step 10"), std::string::npos);
  EXPECT_EQ(traceback_exception(tb), "RuntimeError: shape '[8, -1]' is invalid for input of size 15");
}

TEST(PythonTraceback, ChainedBlocksKeptWhole) {
  const auto lines = split_lines(
      "Traceback (most recent call last):\n"
      "  File \"old.py\", line 1, in <module>\n"
      "OSError: an earlier, unrelated failure\n"
      "retrying\n"
      "Traceback (most recent call last):\n"
      "  File \"/job/data.py\", line 12, in load\n"
      "    return json.load(f)\n"
      "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/job/train.py\", line 5, in <module>\n"
      "    cfg = load(path)\n"
      "ValueError: config /job/cfg.json is empty\n"
      "\n"
      "The above exception was the direct cause of the following exception:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/job/launch.py\", line 9, in <module>\n"
      "    run()\n"
      "KeyboardInterrupt\n");
  const std::string tb = last_python_traceback(lines);
  EXPECT_NE(tb.find("JSONDecodeError"), std::string::npos);
  EXPECT_NE(tb.find("During handling of the above exception"), std::string::npos);
  EXPECT_NE(tb.find("The above exception was the direct cause"), std::string::npos);
  EXPECT_EQ(tb.find("OSError"), std::string::npos);  // "retrying" broke the chain
  EXPECT_EQ(traceback_exception(tb), "KeyboardInterrupt");
}

TEST(PythonTraceback, RankPrefixesRemoved) {
  const auto lines = split_lines(
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/job/train.py\", line 20, in <module>\n"
      "[rank1]:     dist.all_reduce(t)\n"
      "[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled "
      "system error\n"
      "[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
      "[rank1]: Last error:\n"
      "[rank1]: socket startup failed\n"
      "[rank1]:[W1123 10:00:01.000 ProcessGroupNCCL.cpp:1200] Warning: destroy_process_group() was not "
      "called\n");
  const std::string tb = last_python_traceback(lines);
  EXPECT_EQ(tb.find("[rank1]"), std::string::npos);
  EXPECT_NE(tb.find("\n  File \"/job/train.py\""), std::string::npos);  // frame indentation kept
  EXPECT_NE(tb.find("Last error:\nsocket startup failed"), std::string::npos);
  EXPECT_EQ(tb.find("destroy_process_group"), std::string::npos);  // a glog line ends the message
  EXPECT_EQ(traceback_exception(tb).rfind("torch.distributed.DistBackendError: NCCL error", 0), 0u);

  const auto tee = split_lines(
      "[default0]:Traceback (most recent call last):\n"
      "[default0]:  File \"t.py\", line 3, in <module>\n"
      "[default0]:ZeroDivisionError: division by zero\n");
  EXPECT_EQ(last_python_traceback(tee),
            "Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\nZeroDivisionError: "
            "division by zero");
}

TEST(PythonTraceback, LongMessageCappedAndStrayLinesSkipped) {
  std::string text =
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in <module>\n"
      "epoch 3 step 7 (from another thread)\n"
      "    f()\n"
      "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  for (int i = 0; i < 30; ++i) text += "frame #" + std::to_string(i) + ": 0xdeadbeef\n";
  const std::string tb = last_python_traceback(split_lines(text));
  EXPECT_EQ(tb.find("epoch 3"), std::string::npos);
  EXPECT_NE(tb.find("    f()"), std::string::npos);
  EXPECT_NE(tb.find("frame #9:"), std::string::npos);
  EXPECT_EQ(tb.find("frame #10:"), std::string::npos);
}

TEST(PythonTraceback, CutShortBlockHasNoException) {
  const auto lines = split_lines(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in <module>\n");
  const std::string tb = last_python_traceback(lines);
  EXPECT_EQ(tb, "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>");
  EXPECT_EQ(traceback_exception(tb), "");
}

TEST(PythonTraceback, CarriageReturnsAndCustomExceptions) {
  const auto lines = split_lines(
      "Traceback (most recent call last):\r\n"
      "  File \"a.py\", line 1, in <module>\r\n"
      "    raise Boom('x')\r\n"
      "Boom: x\r\n");
  EXPECT_EQ(traceback_exception(last_python_traceback(lines)), "Boom: x");
}

}  // namespace
}  // namespace dd::logs
