// The roles of catalogue entries (catalogue.h's CatalogueRole): read from an entry's JSON ("role",
// "consequence_of", "hang_kind", "peer_kind"), checked across the catalogue, and said in words for `explain`.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "common/result.h"
#include "logs/catalogue.h"

namespace dd::logs {

// Reads e's roles from its JSON object; an error names the entry and the field at fault.
Status read_roles(const nlohmann::json& j, CatalogueEntry& e);

// Every consequence_of names another entry of the catalogue that is a finding.
Status check_consequence_of(const Catalogue& c);

}  // namespace dd::logs
