"""Detection of file paths and HTTP endpoints in free text, in every form people write them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from memory.graph.prefilter import Guarded, Twin, holds_any

# Extensions of files people name in work sessions: source, config, data, docs, infra, build.
# (Not "map", "so", "out", "re": method calls and words like "arr.map" or "timed.out" end so too.)
FILE_EXTENSIONS = frozenset(
    """
    py pyi pyx ipynb js mjs cjs jsx ts tsx vue svelte go rs java kt kts scala swift dart rb php
    c h cc cpp hpp cxx cs fs m mm lua r jl ex exs erl hs clj sql graphql gql proto yaml yml json
    jsonl ndjson toml ini cfg conf env properties xml plist entitlements md mdx rst txt csv tsv
    parquet avro orc xlsx xls docx pptx pdf html htm css scss sass less sh bash zsh fish ps1 bat
    cmd tf tfvars tfstate hcl lock mod sum gradle pom sbt cabal nix dockerfile mk cmake make db
    sqlite sqlite3 log gz zip tar tgz png jpg jpeg gif svg webp ico gguf pt pth ckpt onnx
    safetensors pkl h5 npy npz wasm j2 jinja tpl tmpl pbxproj xcconfig storyboard xib gemspec
    podspec pem crt key service timer socket astro prisma bicep jsonnet libsonnet rego sol zig
    nim bzl bazel pp adoc tex bib rmd psm1 jar war apk ipa aab dll dylib exe whl egg mp4 mp3 wav
    webm avif heic ttf otf woff woff2 pb tflite mlmodel joblib pickle feather arrow hdf5 xlsm
    ppt doc odt rtf ics geojson patch diff p12 pfx jks asc csr tsbuildinfo editorconfig babelrc
    vsix xcodeproj xcworkspace csproj sln fsproj vbproj cabal gleam elm purs erb haml slim
    liquid hbs ejs pug njk mustache twig blade mov avi mkv flac ogg m4a aac eeg vhdr vmrk edf bdf
    fif love epub mobi gpx kml stl gcode blend psd dmg iso deb rpm msi appimage
    """.split()
)

# Files people name without an extension (build, container and project conventions).
BARE_FILENAMES = frozenset(
    """
    Dockerfile Containerfile Makefile GNUmakefile Podfile Gemfile Procfile Jenkinsfile Vagrantfile
    Rakefile Brewfile Justfile Taskfile Caddyfile CODEOWNERS LICENSE README CHANGELOG
    """.split()
)

# Names shaped like files that are in fact libraries or projects ("moment.js", "llama.cpp").
LIBRARY_NAMES = frozenset(
    """
    node.js moment.js chart.js vue.js next.js nuxt.js three.js d3.js express.js ember.js
    backbone.js angular.js react.js socket.io p5.js llama.cpp whisper.cpp ggml.c
    """.split()
)

# Configuration files named by a leading dot alone (".when" in code is a method call, not a file).
DOTFILES = frozenset(
    """
    .env .envrc .gitignore .gitattributes .gitmodules .dockerignore .editorconfig .npmrc .nvmrc
    .yarnrc .bashrc .zshrc .profile .bash_profile .prettierrc .eslintrc .babelrc .flake8
    .pylintrc .coveragerc .python-version .ruby-version .node-version .tool-versions .htaccess
    .mailmap .vimrc .netrc .pgpass .terraformrc .helmignore .gcloudignore .slugignore .vercelignore
    """.split()
)
_DOTFILE = re.compile(r"\.(?:[a-z]+rc|[a-z-]+ignore|env\.[a-z]+)")

# Top-level directories of a Unix filesystem: an absolute path under them is a file, not a route.
UNIX_ROOTS = frozenset(
    "etc usr var home opt tmp srv mnt root bin sbin lib dev proc Users Volumes".split()
)

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

_WINDOWS = re.compile(r"(?<![\w])[A-Za-z]:\\(?:[^\\\s,;:'\"`<>|*?]+\\)*[^\\\s,;:'\"`<>|*?]+")
# A run of path characters; bounded, so that a pathological token cannot make this slow.
# Only tokens holding a dot or a slash are tried (plus the known bare names), which keeps this fast.
# A segment may be hidden (".ssh"), hold a route parameter ("[slug]") or a partition ("dt=2024-06"),
# or be a route group ("app/(auth)/login/page.tsx").
_CANDIDATE = Twin(
    re.compile(
        r"(?<![\w@$%/\\.:-])[~.]{0,2}/?[\w@+\-]{0,120}"
        r"(?:[./]\.?(?:\([\w@+\-]{1,60}\)(?=/)|[\w@+\-{}*\[\]=]{1,120})){1,24}/?"
        r"|(?<![\w@$%/\\.:-])[A-Za-z][\w@+\-]{2,120}/(?![\w/])"  # one directory: "lib/"
    )
)
_BARE = re.compile(r"\b(?:" + "|".join(sorted(BARE_FILENAMES)) + r")(?![\w-]|\.\w)")
_ENDPOINT = re.compile(
    r"\b(" + "|".join(HTTP_METHODS) + r")\s+(/[\w{}:.\-/]*[\w}/])(?:\?[\w=&%.\-]*)?"
)
# A build-file name anywhere: one scan for the capital letters they open with, before the regex
# that needs one. Most names end in "file": that and the other names are substrings to test first.
_BARE_NAME = Guarded(
    re.compile("|".join(sorted(BARE_FILENAMES))),
    sorted({"file" if name.endswith("file") else name for name in BARE_FILENAMES}),
)


def _names_method(text: str) -> bool:
    """Whether an HTTP method is written in ``text``: the cheap test before the regexes needing one."""
    return holds_any(text, HTTP_METHODS)


_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://\S+", re.IGNORECASE)
_LINE_SUFFIX = re.compile(r"(?:::[\w\[\]\-.]+|:\d+(?::\d+)?)$")


def _extension(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return ext.lower() if dot and stem and stem != "." else ""


def is_file_name(token: str) -> bool:
    """Whether one path segment names a file: a known extension, a bare build file, a dotfile."""
    if token in BARE_FILENAMES or token.split(".", 1)[0] in BARE_FILENAMES:
        return True  # "Dockerfile", "Dockerfile.prod", "Makefile.local"
    if token.lower() in LIBRARY_NAMES:
        return False
    if token in DOTFILES or _DOTFILE.fullmatch(token):
        return True
    ext = _extension(token)
    stem = token.split(".")[0]
    # "3.md" is more likely a list item or a version than a file; "2025.xlsx", "404.html" are files.
    return bool(ext) and ext in FILE_EXTENSIONS and not (stem.isdigit() and len(stem) < 3)


def clean_path(raw: str) -> str:
    """A path as a label: no trailing punctuation, :line or ::test suffix, or leading lone slash."""
    path = raw.rstrip(".,;:)]}'\"`")
    path = _LINE_SUFFIX.sub("", path)
    if path.startswith("/") and path.count("/") == 1:
        path = path[1:]  # "/requirements.lock" quoted in an error message names a file, not a root
    return path


def is_path(token: str, in_code: bool = False) -> bool:
    """Whether ``token`` (already cleaned) is a file path; in code, bare names need a directory."""
    if not token or len(token) > 300 or "//" in token:
        return False
    parts = [p for p in token.split("/") if p not in ("", ".", "..", "~")]
    if not parts:
        return False
    last = parts[-1]
    if "{" in token or "*" in last:
        return False
    if is_file_name(last):
        return len(parts) > 1 or not in_code
    if len(parts) >= 2 and _UNKNOWN_EXTENSION.fullmatch(last) and not in_code:
        return True  # "scenes/ui/hud.tscn": a directory and a dotted name, whatever the extension
    if not in_code and _DIRECTORY.fullmatch(token):
        return True  # "docs/guides/", "../../modules/vpc", "envs/prod/main"
    if token.startswith("/") and len(parts) >= 2 and parts[0] in UNIX_ROOTS:
        return not in_code
    if _HOME.match(token):
        return True  # "~/.ssh/config", "~deploy/.ssh/authorized_keys": under someone's home
    # ".well-known/apple-app-site-association": a path under a dot-directory is a file.
    return len(parts) >= 2 and token.startswith(".") and not token.startswith("..") and not in_code


# A path under a home directory ("~/" or "~user/"), naming something below it.
_HOME = re.compile(r"~(?:[a-z_][\w.-]*)?/[\w.@+-]*[A-Za-z_]")
# A file name with an extension not in the list: lower-case, 1-14 letters, after a stem.
_UNKNOWN_EXTENSION = re.compile(r"[\w@+-]+\.[a-z][a-z0-9]{0,13}")
# A directory written as one: a trailing slash ("lib/", "data/raw/sub-XX/"), a leading ./ or ../,
# or three lower-case segments.
_DIRECTORY = re.compile(
    r"(?:\.{1,2}/)+[\w@+-]+(?:/[\w@+.-]+)*/?|[A-Za-z][\w@+-]{2,}(?:/[\w@+.-]+)*/|"
    r"[a-z][\w@+-]+/[a-z][\w@+-]+/[a-z][\w@+-]+"
)
# Object-store and file URLs name data locations, not web pages.
_STORAGE_URL = re.compile(r"\b(?:s3|gs|gcs|hdfs|abfss?)://[\w@+./-]+[\w/]")

# Closing punctuation, which a path never ends with (``_paths_in`` strips it first).
_CLOSING = ".,;:!?)]}'\"`"
# A '.' that a path can hold: one followed, in its token, by more than closing punctuation
# ("done." ends a sentence; "app.py" and "e.g" hold one). Bounded like the token's tail.
_INNER_DOT = r"\.(?=[.,;:!?)\]}'\"`]{0,599}[^\s.,;:!?)\]}'\"`])"
_MAY_HOLD_PATH = re.compile(_INNER_DOT)
# A token holding a separator that is no closing punctuation (only those can be paths): from the
# token's start, such a separator among its first 301 characters and up to 600 more. Possessive:
# characters given back are no separator, so they could not make it match. Tried at the text's
# start, and after each space (the regex engine skips from space to space), so only at token
# starts.
_SEPARATED = re.compile(r"[^\s/.\\]{0,300}+(?:[/\\]|" + _INNER_DOT + r")\S{0,600}")
_SPACE_SEPARATED = re.compile(r"\s(" + _SEPARATED.pattern + ")")
_METHOD_BEFORE = re.compile(r"\b(?:" + "|".join(HTTP_METHODS) + r")\s+$")


# Folder names with spaces, as desktops name them ("Application Support", "Program Files (x86)",
# "Google Drive"): inside a Windows path, or a home or volume path, between capitalised words.
_SPACED_PATH = re.compile(
    r"(?<![\w])(?:[A-Za-z]:\\(?:[\w.()@+-]+(?: [\w.()@+-]+)*\\)+[^\\\s,;:'\"`<>|*?]+|"
    r"(?:~|/(?:Users|Volumes|home|mnt|media))/(?:[\w.@+-]+(?: [A-Z0-9(][\w.()@+-]*)*/)+"
    r"[\w.@+-]*[\w@+-])"
)
_SPACED_PATH_STARTS = ("\\", "~/", "/Users/", "/Volumes/", "/home/", "/mnt/", "/media/")
# A file name with spaces in quotes: "Q3 Forecast.xlsx", 'Onboarding Checklist.docx'. Its words
# are capitalised or hold a digit; "use the new config.yaml" in quotes is a sentence.
_NAME_WORD = re.compile(r"[A-Z0-9(]|\S*\d")
_QUOTED_NAME = re.compile(r"[\"'`“‘]([\w(][\w .,()&+-]{0,80}?\.\w{1,10})[\"'`”’]")
# How every quoted name ends: its extension and the closing quote. The regex above is tried at
# every quote, apostrophes included ("it's"); few texts hold this end, found by a quicker scan.
_QUOTED_NAME_END = re.compile(r"\.\w{1,10}[\"'`”’]")


# An office document named with spaces and no quotes: "saved as Hot desking policy v1.docx", "it's in
# allergen matrix Dec.xlsx", "pasted it into AGM paper - resurfacing.docx". The name runs back
# from its extension to the word that introduces it; without one, only its last word is sure.
_DOCUMENT_EXTENSIONS = tuple(
    f".{e}" for e in "docx doc xlsx xlsm xls pdf pptx ppt odt ods odp rtf".split()
)
_DOCUMENT_HINTS = (".pdf", ".doc", ".xls", ".ppt", ".od", ".rtf")  # one of them opens each
_DOCUMENT_END = re.compile(
    r"[\w()&+-]\.(?:" + "|".join(e[1:] for e in _DOCUMENT_EXTENSIONS) + r")\b"
)
_OPENS_NAME = frozenset(
    "in into as is it's its from off called named titled to of on at with the a an my our your "
    "his her their this that new attached latest updated current and or but then i it we you he "
    "she they me us him them".split()
)
_ENDS_BEFORE_NAME = ",:;.!?)]\"'`”’"
_OPENING_MARKS = "([\"'`“‘"


def _document_names(text: str) -> list[tuple[int, int, str]]:
    out = []
    for m in _DOCUMENT_END.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        words = text[line_start : m.start() + 1].split(" ")
        name = [words.pop()]  # the last word, up to the dot
        if name[0][:1] in _OPENING_MARKS:
            continue  # "(Samples_2024.xlsx": the name opens with this word
        while words and len(name) < 6:
            word = words.pop()
            if word == "-" and words:
                name.append(word)
            elif "." in word or word[-1:] in ("!", "?"):
                name = []  # a sentence ends before it: the word after may be a verb
                break
            elif not word or word.lower() in _OPENS_NAME or word[-1] in _ENDS_BEFORE_NAME:
                break
            elif word[0] in _OPENING_MARKS:  # "(HLS routes.xlsx)"
                name.append(word[1:])
                break
            else:
                name.append(word)
        else:
            continue  # no word introduces it within reach: where the name starts is unsure
        if len(name) > 1 and name[-1] not in ("-", ""):
            start = m.start() + 1 - len(" ".join(name))
            out.append((start, m.end(), text[start : m.end()]))
    return out


def _spaced_names(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of paths and quoted file names that hold spaces."""
    out = []
    if holds_any(text, _SPACED_PATH_STARTS):
        for m in _SPACED_PATH.finditer(text):
            if " " in m.group(0):
                out.append((m.start(), m.end(), clean_path(m.group(0))))
    if holds_any(text, _DOCUMENT_HINTS):
        out.extend(_document_names(text))
    quoted = " " in text and _QUOTED_NAME_END.search(text)
    for m in _QUOTED_NAME.finditer(text) if quoted else ():
        name = m.group(1)
        *words, last = name.split(" ")
        if words and len(words) <= 4 and all(_NAME_WORD.match(w) for w in words):
            if is_file_name(last):
                out.append((m.start(1), m.end(1), name))
    return out


def find_paths(text: str, in_code: bool = False) -> list[str]:
    """File paths in ``text`` in order of appearance, without duplicates and without URLs."""
    return list(_find_paths(text, in_code))


@lru_cache(maxsize=8192)
def _find_paths(text: str, in_code: bool) -> tuple[str, ...]:
    hits: list[tuple[int, str]] = []
    # Whether an HTTP method is written in the text (else no token follows one): a scan of the
    # whole text, made at the first token, as most texts hold none.
    methods: bool | None = None
    # In code, only a path with a directory counts (see ``is_path``), or a Windows one.
    tokens = () if in_code and "/" not in text and "\\" not in text else _separated_tokens(text)
    for start, token in tokens:
        if methods is None:
            methods = _names_method(text)
        if methods and _METHOD_BEFORE.search(text, max(0, start - 8), start):
            continue  # "POST /api/x.json" is a route, not a file
        hits.extend((start + at, path) for at, path in _paths_in(token, in_code))
    # Build-file names open with a capital: a text without one names none (``islower``).
    if not in_code and not text.islower() and _BARE_NAME.search(text):
        hits.extend((m.start(), m.group(0)) for m in _BARE.finditer(text))
    if "://" in text:
        hits.extend((m.start(), m.group(0)) for m in _STORAGE_URL.finditer(text))
    if not in_code and " " in text:
        for start, end, name in _spaced_names(text):  # the whole name, not its last words
            hits = [(at, p) for at, p in hits if not start <= at < end] + [(start, name)]
    found: list[str] = []
    for _, path in sorted(hits):
        if path not in found:
            found.append(path)
    return tuple(found)


def _separated_tokens(text: str) -> Iterator[tuple[int, str]]:
    """(start, text) of each token holding a separator, in order (see ``_SEPARATED``)."""
    if "/" not in text and "\\" not in text and not _MAY_HOLD_PATH.search(text):
        return  # no token can hold one: a quicker scan than the token regex
    first = _SEPARATED.match(text)
    if first:
        yield 0, first.group(0)
    for m in _SPACE_SEPARATED.finditer(text, first.end() if first else 0):
        yield m.start(1), m.group(1)


def _paths_in(word: str, in_code: bool) -> list[tuple[int, str]]:
    if in_code and "/" not in word and "\\" not in word:
        return []  # in code, only a path with a directory counts (see ``is_path``)
    core = word.rstrip(_CLOSING)
    if (
        not ("/" in core or "." in core or "\\" in core)
        or "://" in word
        or word.startswith(HTTP_METHODS)
    ):
        return []  # "done." ends a sentence; only a separator inside the word can make a path
    windows = _WINDOWS.search(word) if "\\" in word else None
    if windows:
        return [(windows.start(), windows.group(0).rstrip(".,;)"))]
    out = []
    for m in _CANDIDATE.finditer(word):
        path = clean_path(m.group(0))
        if is_path(path, in_code):
            out.append((m.start(), path))
    return out


def find_endpoints(text: str) -> list[str]:
    """HTTP routes written with their method ("POST /api/auth/login"), in order, once each."""
    found: list[str] = []
    if not _names_method(text):
        return found
    for m in _ENDPOINT.finditer(text):
        label = f"{m.group(1)} {m.group(2)}"
        if label not in found:
            found.append(label)
    return found


def is_endpoint(label: str) -> bool:
    return bool(_ENDPOINT.fullmatch(label.strip()))


# A verb of touching files followed only by paths: the paths are the facts, not a task.
_PATH_VERB = re.compile(
    r"^(?:(?:also\s+)?(?:updated?|updating|created?|creating|add(?:ed|ing)?|modif(?:y|ied)|"
    r"edit(?:ed)?|chang(?:e|ed)|touch(?:ed)?|wrote|writ(?:e|ing)|will add|working on|"
    r"files? (?:updated|touched)))\s+",
    re.IGNORECASE,
)
_FILLER_WORDS = Twin(re.compile(r"\b(?:the|and|both|file|files|also|a|new)\b|[,`]"))


def names_only_files(text: str) -> bool:
    """Whether a clause names nothing but files ("Updated src/a.ts and b.json")."""
    text = text.strip()
    verb = _PATH_VERB.match(text)
    rest = _FILLER_WORDS.sub(" ", text[verb.end() :] if verb else text)
    words = rest.split()
    return bool(words) and all(find_paths(w) for w in words)
