// The checks' constructors shared by report/validity.cc and report/consistency.cc
// (a judged check with its reason when suspect; one not judged, with why not).
#pragma once

#include <string>

#include "report/validity.h"

namespace memstand {

ValidityCheck JudgedCheck(std::string name, std::string figure, std::string threshold, bool pass,
                          std::string reason);
ValidityCheck NotJudgedCheck(std::string name, std::string threshold, std::string why);

}  // namespace memstand
