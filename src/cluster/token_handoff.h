// How node rank 0 hands a job token it generated to the person starting the other nodes: on a terminal it is
// printed in the command to paste; when stderr is a file or a pipe (a batch log, readable by others and
// kept), it goes to a new file only this user can read, and the command fetches it from this node
// (`ssh MASTER_HOST cat FILE`: the other nodes' own /tmp does not have it); that file is removed when this
// process exits (the other nodes read it before they join, so before the run ends).
#pragma once
#include <string>

namespace dd::cluster {

struct TokenHandoff {
  std::string assignment;  // what the pasted command starts with: DISTDOCTOR_TOKEN=...
  std::string where;       // a line saying where the token is when it is not printed ("" on a terminal)
};

// generated: this node made the token (else the user gave it and knows it: it is never printed).
// master: "HOST:PORT" the other nodes reach this one at (its host is where they fetch the token file).
TokenHandoff hand_off_token(const std::string& token, bool generated, bool stderr_is_terminal,
                            const std::string& master);

}  // namespace dd::cluster
