// Tests of secret redaction: secret names, URL passwords, NAME=VALUE pairs and --flag values in free text.
#include "common/redact.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <random>

#include "common/secret_words.h"

namespace dd {
namespace {

TEST(Redact, SecretNamesAnyCase) {
  for (const char* n :
       {"HF_TOKEN", "hf_token", "WANDB_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "MYSQL_PASSWD",
        "GOOGLE_APPLICATION_CREDENTIALS", "NCCL_AUTH", "Authorization", "apikey"})
    EXPECT_TRUE(is_secret_name(n)) << n;
  for (const char* n : {"PATH", "NCCL_SOCKET_IFNAME", "MASTER_ADDR", "", "MAX_NEW_TOKENS",
                        "TOKENIZERS_PARALLELISM", "tokenizer_name"})
    EXPECT_FALSE(is_secret_name(n)) << n;
  EXPECT_TRUE(is_secret_name("TOKENIZER_TOKEN"));  // a benign word does not hide a real one
}

TEST(Redact, ValueOfSecretNameIsHiddenWhole) {
  EXPECT_EQ(redact_value("HF_TOKEN", "hf_abcdef"), "<redacted>");
  EXPECT_EQ(redact_value("HF_TOKEN", ""), "");  // empty stays visible: "set but empty" is a useful fact
  EXPECT_EQ(redact_value("PATH", "/usr/bin:/bin"), "/usr/bin:/bin");
  EXPECT_EQ(redact_value("", ""), "");
}

TEST(Redact, UrlPasswords) {
  EXPECT_EQ(redact_value("DATABASE_URL", "postgres://app:s3cret@db.local:5432/x"),
            "postgres://app:<redacted>@db.local:5432/x");
  EXPECT_EQ(redact_value("PIP_INDEX_URL", "https://user:pa@ss@pypi.example/simple"),
            "https://user:<redacted>@pypi.example/simple");  // '@' inside the password
  EXPECT_EQ(redact_value("X", "https://user@host:8080/p"), "https://user@host:8080/p");  // no password
  EXPECT_EQ(redact_value("X", "https://host/path@v1:2"), "https://host/path@v1:2");      // '@' in the path
  EXPECT_EQ(redact_value("X", "https://host:443/a?u=x:y@z"), "https://host:443/a?u=x:y@z");  // in the query
  EXPECT_EQ(redact_value("X", "user:pw@host"), "user:pw@host");  // no scheme: not a URL
  EXPECT_EQ(redact_value("X", "://a:b@c"), "://a:b@c");          // no scheme name
  EXPECT_EQ(redact_value("X", "http://"), "http://");
  EXPECT_EQ(redact_value("X", "a=http://u:p@h1,b=redis://v:q@h2/0"),
            "a=http://u:<redacted>@h1,b=redis://v:<redacted>@h2/0");
  EXPECT_EQ(redact_value("X", "http://u:@h"), "http://u:<redacted>@h");
}

TEST(Redact, QueryParameterSecrets) {
  EXPECT_EQ(redact_value("U", "https://b.s3.example/f?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ab12&x=1"),
            "https://b.s3.example/f?X-Amz-Credential=<redacted>&X-Amz-Signature=<redacted>&x=1");
  EXPECT_EQ(redact_value("U", "https://h/p?access_token=abc#frag"),
            "https://h/p?access_token=<redacted>#frag");
  EXPECT_EQ(redact_value("U", "https://h/blob?sv=2022&sig=Zm9v%3D"), "https://h/blob?sv=2022&sig=<redacted>");
  EXPECT_EQ(redact_value("U", "https://h/p?q=1&sig="), "https://h/p?q=1&sig=");  // nothing to hide
  EXPECT_EQ(redact_value("U", "gen?max_tokens=5&&x"), "gen?max_tokens=5&&x");
  EXPECT_EQ(redact_text("GET /v1?api_key=k1 200"), "GET /v1?api_key=<redacted> 200");
}

TEST(Redact, TextPairsAndFlags) {
  EXPECT_EQ(redact_text("python train.py --hf-token abc123 --lr 0.1"),
            "python train.py --hf-token <redacted> --lr 0.1");
  EXPECT_EQ(redact_text("python train.py --password=abc --epochs=3"),
            "python train.py --password=<redacted> --epochs=3");
  EXPECT_EQ(redact_text("env WANDB_API_KEY=xyz HOME=/root python t.py"),
            "env WANDB_API_KEY=<redacted> HOME=/root python t.py");
  EXPECT_EQ(redact_text("export HF_TOKEN=\"two words\" && run"), "export HF_TOKEN=<redacted> && run");
  EXPECT_EQ(redact_text("pip install --index-url https://me:pw@pypi.corp/simple torch"),
            "pip install --index-url https://me:<redacted>@pypi.corp/simple torch");
  EXPECT_EQ(redact_text("curl -H 'Authorization: Bearer eyJhbGc' http://x"),
            "curl -H 'Authorization: Bearer <redacted> http://x");
  EXPECT_EQ(redact_text("--use-auth --verbose x"), "--use-auth --verbose x");  // a flag takes no value
  EXPECT_EQ(redact_text("python gen.py --max_new_tokens 256 --tokenizer gpt2"),
            "python gen.py --max_new_tokens 256 --tokenizer gpt2");
}

TEST(Redact, KeyAsAWordIsNotAHeader) {
  EXPECT_EQ(redact_text("timed out waiting for 1 key: dd/comm/gloo/1"),
            "timed out waiting for 1 key: dd/comm/gloo/1");
  EXPECT_EQ(redact_text("missing keys: a b"), "missing keys: a b");
  EXPECT_EQ(redact_text("api_key: abc"), std::string("api_key: ") + kRedacted);
  EXPECT_EQ(redact_text("KeyError: 'label'"), "KeyError: 'label'");  // an exception, not a header
  EXPECT_EQ(redact_text("AuthenticationError: bad login"), "AuthenticationError: bad login");
}

TEST(Redact, TextEdgeCases) {
  EXPECT_EQ(redact_text(""), "");
  EXPECT_EQ(redact_text("   "), "   ");
  EXPECT_EQ(redact_text("a  b\tc\n"), "a  b\tc\n");  // whitespace kept as it was
  EXPECT_EQ(redact_text("--token"), "--token");      // nothing follows
  EXPECT_EQ(redact_text("TOKEN="), "TOKEN=");        // empty value
  EXPECT_EQ(redact_text("=abc"), "=abc");
  EXPECT_EQ(redact_text("x==y key"), "x==y key");
  EXPECT_EQ(redact_text("git@github.com:org/repo.git"), "git@github.com:org/repo.git");
  EXPECT_EQ(redact_text("RuntimeError: API_KEY=abc is invalid"),
            "RuntimeError: API_KEY=<redacted> is invalid");
  EXPECT_EQ(redact_text("password: hunter2"), "password: <redacted>");
}

// The tool's own sentences go through redact_known: a word after "--token" or "TOKEN:" is a word of the
// sentence there (issue 28: "pass --token <redacted> DISTDOCTOR_TOKEN", "HF_TOKEN: <redacted> 1 abc").
TEST(Redact, ToolSentencesKeepTheirWords) {
  EXPECT_EQ(redact_known("job token derived from the job id (weak; pass --token or DISTDOCTOR_TOKEN)"),
            "job token derived from the job id (weak; pass --token or DISTDOCTOR_TOKEN)");
  EXPECT_EQ(redact_known("HF_TOKEN: node 0 <redacted>; node 1 (unset)"),
            "HF_TOKEN: node 0 <redacted>; node 1 (unset)");
  EXPECT_EQ(shown("no job token: this node needs one"), "no job token: this node needs one");
  // What needs no context is still hidden there.
  EXPECT_EQ(redact_known("run with HF_TOKEN=abc123 and https://u:pw@h/x"),
            "run with HF_TOKEN=<redacted> and https://u:<redacted>@h/x");
  // The same sentences as untrusted text lose the announced word: that is why untrusted text is redacted
  // where it enters, and not again at the output.
  EXPECT_EQ(redact_text("pass --token or X"), "pass --token <redacted> X");
  nlohmann::json j = {{"evidence", {"--token", "HF_TOKEN: node 0 x"}}};
  redact_json(j);
  EXPECT_EQ(j["evidence"][1], "HF_TOKEN: node 0 x");
  EXPECT_EQ(j["evidence"][0], "--token");
}

TEST(Redact, CommandLines) {
  EXPECT_EQ(redact_command_line(std::string("python\0t.py\0--api-key\0sk-1\0--lr\0", 32)),
            "python t.py --api-key <redacted> --lr");
  EXPECT_EQ(redact_command_line(std::string("a\0\0b", 4)), "a b");
  EXPECT_EQ(redact_command_line(""), "");
  EXPECT_TRUE(might_hold_secret("Authorization: x"));
  EXPECT_FALSE(might_hold_secret("NCCL INFO Channel 00/32 : 0 1"));
}

// might_hold_secret runs on every line `logs` reads (a table look-up per byte): every needle in any case and
// at any place is still found, and near misses are not.
// has_secret_word against a plain search, on random lines of every length up to 200 made of the needles'
// letters in both cases: the vector scans (16 bytes, and 32 where the CPU has AVX2) say what the plain one
// says.
TEST(Redact, SecretWordScanAgreesWithAPlainSearch) {
  const std::string letters = "tokeysecrpaswdubgiTOKEYSECRPASWDUBGI:/ x";
  const char* needles[] = {"://", "token", "key", "secret", "passw", "cred", "auth", "bearer", "sig"};
  std::mt19937 rng(38);
  size_t found = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string line(rng() % 201, ' ');
    for (char& c : line) c = letters[rng() % letters.size()];
    std::string lower = line;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    bool plain = false;
    for (const char* w : needles) plain |= lower.find(w) != std::string::npos;
    found += plain;
    ASSERT_EQ(has_secret_word(line), plain) << line;
  }
  EXPECT_GT(found, 400u) << "the random lines hold needles often enough to test both answers";
}

TEST(Redact, SecretWordsFoundInAnyCaseAnywhere) {
  for (const char* w : {"://", "token", "key", "secret", "passw", "cred", "auth", "bearer", "sig"}) {
    std::string up = w;
    for (char& c : up) c = char(std::toupper(static_cast<unsigned char>(c)));
    std::string mixed = w;
    mixed[0] = char(std::toupper(static_cast<unsigned char>(mixed[0])));
    for (const std::string& x : {std::string(w), up, mixed}) {
      EXPECT_TRUE(might_hold_secret(x)) << x;
      EXPECT_TRUE(might_hold_secret("xx " + x)) << x;
      EXPECT_TRUE(might_hold_secret("a" + x + "b")) << x;
    }
  }
  for (const char* miss :
       {"", "t", "toke", "ke", "secre", "pass", "cre", "aut", "beare", "si", ":/", "k e y"})
    EXPECT_FALSE(might_hold_secret(miss)) << miss;
  // The scan goes 16 or 32 bytes at a time: a needle at every offset of a long line, across each block's edge
  // and in the tail, is found; the near misses at every offset are not.
  for (const char* w : {"://", "token", "key", "secret", "passw", "cred", "auth", "bearer", "sig"})
    for (size_t at = 0; at < 100; ++at) {
      std::string line(106, 'x');
      line.replace(at, std::strlen(w), w);
      line.resize(std::max<size_t>(106, at + std::strlen(w)), 'x');
      EXPECT_TRUE(might_hold_secret(line)) << w << " at " << at;
      EXPECT_TRUE(might_hold_secret(line.substr(0, at + std::strlen(w)))) << w << " at the end, " << at;
    }
  for (const char* miss : {"toke", "secre", "beare", ":/", "si", "Si", "TOKE"})
    for (size_t at = 0; at < 40; ++at) {
      std::string line(48, '.');
      line.replace(at, std::strlen(miss), miss);
      EXPECT_FALSE(might_hold_secret(line)) << miss << " at " << at;
    }
  EXPECT_FALSE(might_hold_secret(std::string(4096, 'z')));
  EXPECT_FALSE(might_hold_secret(std::string(1000, '\x1a') + std::string(1000, '\x0f')))
      << "bytes that read as ':' or '/' with bit 5 set are not the URL needle";
}

}  // namespace
}  // namespace dd

namespace dd {
namespace {

// A secret's value printed where nothing names it (a worker's own message) is hidden by value; short values
// and values of ordinary variables are not (they would blank common words).
TEST(Redact, KnownSecretValuesAnywhere) {
  add_secret_values({{"MY_API_KEY", "sk-live-7f3a9c"}, {"HF_TOKEN", "abc"}, {"PATH", "/usr/local/bin-long"}});
  EXPECT_EQ(redact_text("bad key sk-live-7f3a9c, retrying"), "bad key <redacted>, retrying");
  EXPECT_EQ(redact_text("RuntimeError: 401 for sk-live-7f3a9csk-live-7f3a9c"),
            "RuntimeError: 401 for <redacted><redacted>");
  EXPECT_EQ(redact_text("abc is short"), "abc is short");
  EXPECT_EQ(redact_text("ls /usr/local/bin-long"), "ls /usr/local/bin-long");
  nlohmann::json j = {{"tail", {"x", "token sk-live-7f3a9c"}}, {"title", "sk-live-7f3a9c"}};
  redact_json(j);
  EXPECT_EQ(j.dump().find("sk-live"), std::string::npos) << j.dump();
}

}  // namespace
}  // namespace dd
