#include "workload/command_template.h"

#include <gtest/gtest.h>

#include <string>

namespace memstand {
namespace {

using PartKind = TemplatePart::Kind;

// Renders an argument back as text, placeholders as <key> and <data>.
std::string Render(const TemplateArg& arg) {
  std::string out;
  for (const TemplatePart& part : arg) {
    if (part.kind == PartKind::kKey) out += "<key>";
    if (part.kind == PartKind::kData) out += "<data>";
    if (part.kind == PartKind::kLiteral) out += part.literal;
  }
  return out;
}

std::vector<std::string> RenderAll(const CommandTemplate& command) {
  std::vector<std::string> out;
  for (const TemplateArg& arg : command.args) out.push_back(Render(arg));
  return out;
}

CommandTemplate ParseOk(std::string_view text) {
  auto command = ParseCommandTemplate(text);
  EXPECT_TRUE(command.ok()) << text << ": " << command.status().message();
  return command.ok() ? *command : CommandTemplate{};
}

std::string ParseError(std::string_view text) {
  auto command = ParseCommandTemplate(text);
  EXPECT_FALSE(command.ok()) << text;
  if (command.ok()) return "";
  EXPECT_EQ(command.status().code(), Status::Code::kInvalidArgument);
  return command.status().message();
}

TEST(CommandTemplateTest, PlainWords) {
  const CommandTemplate command = ParseOk("  set   __key__\t__data__ ");
  EXPECT_EQ(command.name, "SET");
  EXPECT_EQ(RenderAll(command), (std::vector<std::string>{"set", "<key>", "<data>"}));
  EXPECT_TRUE(command.uses_key);
  EXPECT_TRUE(command.uses_data);
  ASSERT_EQ(command.args[1].size(), 1u);
  EXPECT_EQ(command.args[1][0].kind, PartKind::kKey);
  EXPECT_EQ(command.args[2][0].kind, PartKind::kData);
}

TEST(CommandTemplateTest, NameIsUpperCasedAndFlagsFollowUse) {
  const CommandTemplate ping = ParseOk("ping");
  EXPECT_EQ(ping.name, "PING");
  EXPECT_EQ(RenderAll(ping), (std::vector<std::string>{"ping"}));
  EXPECT_FALSE(ping.uses_key);
  EXPECT_FALSE(ping.uses_data);
  const CommandTemplate get = ParseOk("Get __key__");
  EXPECT_EQ(get.name, "GET");
  EXPECT_TRUE(get.uses_key);
  EXPECT_FALSE(get.uses_data);
  const CommandTemplate publish = ParseOk("publish chan __data__");
  EXPECT_FALSE(publish.uses_key);
  EXPECT_TRUE(publish.uses_data);
}

TEST(CommandTemplateTest, QuotedArgumentsKeepSpaces) {
  const CommandTemplate command = ParseOk(R"(set "hello world" 'single quoted' "")");
  EXPECT_EQ(RenderAll(command),
            (std::vector<std::string>{"set", "hello world", "single quoted", ""}));
  ASSERT_EQ(command.args[3].size(), 1u);
  EXPECT_EQ(command.args[3][0].kind, PartKind::kLiteral);
}

TEST(CommandTemplateTest, QuotedPiecesJoinTheirNeighbours) {
  EXPECT_EQ(RenderAll(ParseOk(R"(set user:"a b":x __key__)")),
            (std::vector<std::string>{"set", "user:a b:x", "<key>"}));
}

TEST(CommandTemplateTest, DoubleQuoteEscapes) {
  const CommandTemplate command = ParseOk(R"(set "a\"b\\c\n\r\t\x41\x7a" 'it\'s')");
  EXPECT_EQ(RenderAll(command), (std::vector<std::string>{"set", "a\"b\\c\n\r\tAz", "it's"}));
}

TEST(CommandTemplateTest, HexEscapeCanProduceAnyByte) {
  const CommandTemplate command = ParseOk(R"(set "\x00\xff")");
  EXPECT_EQ(Render(command.args[1]), std::string("\0\xff", 2));
}

TEST(CommandTemplateTest, PlaceholderEmbeddedInArgument) {
  const CommandTemplate command = ParseOk("hset user:__key__:name f __data__");
  ASSERT_EQ(command.args[1].size(), 3u);
  EXPECT_EQ(command.args[1][0].kind, PartKind::kLiteral);
  EXPECT_EQ(command.args[1][0].literal, "user:");
  EXPECT_EQ(command.args[1][1].kind, PartKind::kKey);
  EXPECT_EQ(command.args[1][2].kind, PartKind::kLiteral);
  EXPECT_EQ(command.args[1][2].literal, ":name");
}

TEST(CommandTemplateTest, SeveralPlaceholdersInOneArgument) {
  const CommandTemplate command = ParseOk(R"(set "__key__=__data__" __key____data__)");
  EXPECT_EQ(RenderAll(command), (std::vector<std::string>{"set", "<key>=<data>", "<key><data>"}));
  ASSERT_EQ(command.args[2].size(), 2u);
  EXPECT_EQ(command.args[2][0].kind, PartKind::kKey);
  EXPECT_EQ(command.args[2][1].kind, PartKind::kData);
}

TEST(CommandTemplateTest, UnderscoresThatAreNotPlaceholdersAreLiteral) {
  EXPECT_EQ(RenderAll(ParseOk("set __my_key__ a__ __ ____")),
            (std::vector<std::string>{"set", "__my_key__", "a__", "__", "____"}));
}

TEST(CommandTemplateTest, EmptyTemplateIsAnError) {
  for (const char* text : {"", "   ", "\t\n"}) {
    EXPECT_EQ(ParseError(text), "empty command template");
  }
}

TEST(CommandTemplateTest, UnbalancedQuotesAreAnError) {
  for (const char* text : {R"(set "abc)", "set 'abc", R"(set "abc\")", R"(set 'a\')"}) {
    EXPECT_EQ(ParseError(text), "unbalanced quotes in template: " + std::string(text));
  }
  // A long template is quoted cut, with its length.
  const std::string long_text = "set \"" + std::string(120000, 'x');
  EXPECT_EQ(ParseError(long_text),
            "unbalanced quotes in template: " + long_text.substr(0, 80) + "... (120005 bytes)");
}

TEST(CommandTemplateTest, UnknownPlaceholderIsNamed) {
  EXPECT_EQ(ParseError("set __foo__ __data__"),
            "unknown placeholder __foo__ in template 'set __foo__ __data__'; known: __key__, "
            "__data__");
  EXPECT_NE(ParseError("set x:__KEY__").find("__KEY__"), std::string::npos);
  EXPECT_NE(ParseError(R"(set "__value1__")").find("__value1__"), std::string::npos);
}

TEST(CommandTemplateTest, BadHexEscapeIsAnError) {
  for (const char* text : {R"(set "\x4")", R"(set "\xg1")", R"(set "\x")"}) {
    const std::string message = ParseError(text);
    EXPECT_NE(message.find("bad \\x escape"), std::string::npos) << message;
    EXPECT_NE(message.find(text), std::string::npos) << message;
  }
}

TEST(CommandTemplateTest, CommandNameMustBeANonEmptyLiteral) {
  EXPECT_NE(ParseError("__key__ get").find("command name"), std::string::npos);
  EXPECT_NE(ParseError(R"("" get)").find("command name"), std::string::npos);
}

}  // namespace
}  // namespace memstand
