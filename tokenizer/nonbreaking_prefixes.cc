#include "tokenizer/nonbreaking_prefixes.h"

namespace tokenizer {

NonbreakingPrefixes nonbreaking_prefixes(std::string_view language) {
  const std::string_view primary = language.substr(0, language.find_first_of("-_"));
  NonbreakingPrefixes p;
  if (primary == "en") {
    p.always = {"Mr",   "Mrs",  "Ms",  "Dr",   "Prof", "Sr",  "Jr",   "St",     "Mt",     "Rev",  "Gen",
                "Col",  "Capt", "Lt",  "Sgt",  "Gov",  "Sen", "Rep",  "Hon",    "Messrs", "Mmes", "Pres",
                "Supt", "Cmdr", "Adm", "Maj",  "Brig", "Fr",  "vs",   "approx", "dept",   "fig",  "Fig",
                "cf",   "al",   "Ave", "Blvd", "Rd",   "ca",  "Bros", "Esq"};
    p.before_number = {"No",  "Nos", "Art", "pp",  "p",   "Vol", "vol",  "ch",  "Ch",  "Jan", "Feb",
                       "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec"};
  } else if (primary == "de") {
    p.always = {"Hr",   "Hrn",  "Fr",   "Dr",   "Prof", "Str",   "Tel",     "bzw",    "ca",   "vgl",  "ggf",
                "evtl", "inkl", "zzgl", "Jh",   "Jhd",  "Abs",   "Abb",     "Bd",     "Hrsg", "Mio",  "Mrd",
                "geb",  "gest", "Dipl", "Ing",  "St",   "Kap",   "Mag",     "Hl",     "hl",   "sog",  "Std",
                "Min",  "Gebr", "allg", "betr", "bspw", "eigtl", "einschl", "entspr", "gem",  "insb", "Jan",
                "Feb",  "Aug",  "Sept", "Okt",  "Nov",  "Dez",   "MwSt",    "gegr"};
    p.before_number = {"Nr", "Art", "S", "Bd", "Kap", "Abs", "Ziff"};
    p.before_number_suffix = "str";
    p.ordinal_numbers = true;
  } else if (primary == "fr") {
    p.always = {"Mme", "Mlle", "MM",   "Mmes", "Mlles", "Dr",  "Pr",  "Me",   "Mgr",
                "St",  "Ste",  "av",   "apr",  "env",   "cf",  "ex",  "éd",   "coll",
                "éds", "vol",  "chap", "fig",  "réf",   "tél", "Cie", "boul", "bd"};
    p.before_number = {"p", "pp", "No", "no", "art", "Art", "n°"};
  }
  return p;
}

const std::vector<std::string>& nonbreaking_prefix_languages() {
  static const std::vector<std::string> languages = [] {
    std::vector<std::string> found;
    for (const char* candidate : {"de", "en", "fr"}) {
      if (!nonbreaking_prefixes(candidate).always.empty()) found.push_back(candidate);
    }
    return found;
  }();
  return languages;
}

}  // namespace tokenizer
