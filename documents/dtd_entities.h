// References to the entities a member's DTD declares (`&product;` after `<!ENTITY product "DogPark">`):
// pugixml keeps them as text, so the model would read them and the writer would spell them `&amp;product;`.
// They are hidden behind template-tag tokens, which are protected spans the model never reads, and
// written back as they were.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace documents {

// `xml` with each declared entity's reference after the doctype replaced by a token; the references in
// `entities`, by token number. Unchanged (and `entities` empty) without an internal subset's `<!ENTITY`.
std::string hide_dtd_entities(std::string_view xml, std::vector<std::string>* entities);

// The tokens of hide_dtd_entities() replaced by the references they stand for.
std::string restore_dtd_entities(std::string_view xml, const std::vector<std::string>& entities);

}  // namespace documents
