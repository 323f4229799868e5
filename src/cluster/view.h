// The ClusterView types (defined beside the cluster rules, in rules/cluster_view.h) under the names the
// cluster layer uses: cluster/ fills a ClusterView, rules/ read it.
#pragma once
#include "rules/cluster_view.h"

namespace dd::cluster {

using rules::ClusterNode;
using rules::ClusterView;
using rules::group_nodes;
using rules::Member;
using rules::MeshEndpoint;
using rules::MeshProbe;
using rules::MeshResult;

}  // namespace dd::cluster
