#include "documents/epub.h"

#include <cctype>
#include <map>
#include <pugixml.hpp>

#include "core/error.h"
#include "documents/nesting.h"
#include "documents/xml_reader.h"
#include "documents/zip_package.h"

namespace documents {

namespace {

pugi::xml_document parse_member(const ZipPackage& package, const std::string& member,
                                const std::string& name) {
  const std::string xml = package.read(member);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed) throw core::Error(name + ": " + member + ": " + parsed.description());
  return doc;
}

// An element's local name: "opf:item" and "item" are both "item".
std::string local_name(const pugi::xml_node& node) {
  const std::string full = node.name();
  const size_t colon = full.find(':');
  return colon == std::string::npos ? full : full.substr(colon + 1);
}

pugi::xml_node child_named(const pugi::xml_node& parent, const std::string& local) {
  for (pugi::xml_node child : parent.children()) {
    if (child.type() == pugi::node_element && local_name(child) == local) return child;
  }
  return {};
}

// A manifest href as a zip member name: %XX decoded, relative to the OPF's folder.
std::string member_of(const std::string& opf_folder, const std::string& href) {
  std::string decoded;
  for (size_t i = 0; i < href.size(); ++i) {
    if (href[i] == '%' && i + 2 < href.size() && std::isxdigit(static_cast<unsigned char>(href[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(href[i + 2]))) {
      decoded += static_cast<char>(std::stoi(href.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      decoded += href[i];
    }
  }
  const size_t hash = decoded.find('#');
  if (hash != std::string::npos) decoded.resize(hash);
  return opf_folder + decoded;
}

}  // namespace

const std::vector<std::string>& opf_translated_elements() {
  static const std::vector<std::string> elements = {"dc:title", "dc:description"};
  return elements;
}

std::string translate_epub(std::string_view bytes, const std::string& name,
                           std::vector<std::string>* warnings, const EpubMemberTranslator& translate,
                           uint64_t max_inflated) {
  ZipPackage package{std::string(bytes), name, max_inflated};
  const pugi::xml_document container = parse_member(package, "META-INF/container.xml", name);
  const std::string opf =
      container.select_node("//*[local-name()='rootfile']/@full-path").attribute().value();
  if (opf.empty()) throw core::Error(name + ": META-INF/container.xml names no rootfile");
  const size_t slash = opf.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "" : opf.substr(0, slash + 1);
  const pugi::xml_document package_document = parse_member(package, opf, name);
  const pugi::xml_node manifest = child_named(package_document.document_element(), "manifest");

  std::map<std::string, EpubPart> parts = {{opf, EpubPart::kOpf}};
  for (pugi::xml_node item : manifest.children()) {
    if (local_name(item) != "item") continue;
    const std::string type = item.attribute("media-type").value();
    const std::string member = member_of(folder, item.attribute("href").value());
    if (type == "application/xhtml+xml") parts[member] = EpubPart::kXhtml;
    if (type == "application/x-dtbncx+xml") parts[member] = EpubPart::kNcx;
  }
  std::map<std::string, std::string> replaced;
  for (const std::string& member : package.names()) {
    const auto part = parts.find(member);
    if (part == parts.end()) continue;
    try {
      replaced[member] = translate(part->second, member, package.read(member));
    } catch (const MalformedXml& e) {
      // A malformed or too deeply nested member stays as it is; the rest of the book is translated.
      if (warnings) warnings->push_back(std::string(e.what()) + "; " + member + " kept as it is");
    } catch (const TooDeep& e) {
      if (warnings) warnings->push_back(std::string(e.what()) + "; " + member + " kept as it is");
    }
  }
  return package.write(replaced);
}

}  // namespace documents
