//! The avatar (`avatar_type` and `avatar`) and the tool's icons, both ways.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::json::Node;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;
use crate::tool::Icon;

/// The icon `avatar_type` and `avatar` make, if any.
pub(super) fn read_avatar(metadata: &Node<'_>, notes: &mut Notes) -> Result<Option<Icon>> {
    let (holder, type_key) = match metadata.get("avatar") {
        Some(avatar) if avatar.value.is_object() => {
            notes.push(
                NoteKind::Normalized {
                    field: "avatar".into(),
                },
                avatar.at.clone(),
                "\"avatar\" is an object holding avatar_type and avatar (as the spec's prose says); \
                 read as the two flat fields",
            );
            if let Some(outer) = metadata.get("avatar_type") {
                notes.push(
                    NoteKind::Dropped {
                        keyword: "avatar_type".into(),
                    },
                    outer.at.clone(),
                    "the avatar object's own avatar_type is used; this one was left out",
                );
            }
            (avatar, "avatar_type")
        }
        _ => (metadata.clone(), "avatar_type"),
    };
    let avatar_type = holder.get(type_key);
    let Some(avatar) = holder.get("avatar") else {
        if let Some(avatar_type) = avatar_type {
            notes.push(
                NoteKind::Dropped {
                    keyword: "avatar_type".into(),
                },
                avatar_type.at.clone(),
                "\"avatar_type\" is given without an avatar; left out",
            );
        }
        return Ok(None);
    };
    let image = avatar.str()?.trim();
    if image.is_empty() {
        notes.push(
            NoteKind::Dropped {
                keyword: "avatar".into(),
            },
            avatar.at.clone(),
            "the avatar is empty; left out",
        );
        return Ok(None);
    }
    let kind = match &avatar_type {
        Some(node) => match node.str()? {
            kind @ ("url" | "base64") => kind,
            other => {
                return Err(node.error(format!(
                    "\"avatar_type\" must be \"url\" or \"base64\"; found {other:?}"
                )))
            }
        },
        None => {
            let inferred = if image.starts_with("data:") || !looks_like_url(image) {
                "base64"
            } else {
                "url"
            };
            notes.push(
                NoteKind::Defaulted {
                    field: "avatar_type".into(),
                },
                avatar.at.clone(),
                format!("no avatar_type; the avatar reads as {inferred}"),
            );
            inferred
        }
    };
    if kind == "url" || image.starts_with("data:") {
        if kind == "base64" && avatar_type.is_some() {
            notes.push(
                NoteKind::Normalized {
                    field: "avatar".into(),
                },
                avatar.at.clone(),
                "the base64 avatar is already a data: URI; used as it is",
            );
        }
        return Ok(Some(Icon::new(image)));
    }
    let mime = match image_type(image) {
        Some(mime) => mime,
        None => {
            notes.push(
                NoteKind::Defaulted {
                    field: "mimeType".into(),
                },
                avatar.at.clone(),
                "the avatar's image type was not recognised; its data: URI says application/octet-stream",
            );
            "application/octet-stream"
        }
    };
    Ok(Some(Icon::new(format!("data:{mime};base64,{image}"))))
}

fn looks_like_url(text: &str) -> bool {
    text.contains("://") || text.starts_with('/')
}

/// The MIME type of base64-encoded image data, from its first bytes.
fn image_type(base64: &str) -> Option<&'static str> {
    const SIGNATURES: [(&str, &str); 7] = [
        ("iVBORw0KGgo", "image/png"),
        ("/9j/", "image/jpeg"),
        ("R0lGOD", "image/gif"),
        ("UklGR", "image/webp"),
        ("PHN2Zy", "image/svg+xml"),
        ("PD94bWwg", "image/svg+xml"),
        ("AAABAA", "image/x-icon"),
    ];
    SIGNATURES
        .iter()
        .find(|(prefix, _)| base64.starts_with(prefix))
        .map(|(_, mime)| *mime)
}

/// The first icon as `avatar_type` and `avatar` in `meta`; the others are
/// noted as left out.
pub(super) fn write_avatar(icons: &[Icon], meta: &mut Map<String, Value>, notes: &mut Notes) {
    let at = Pointer::root().key("icons");
    for index in 1..icons.len() {
        notes.push(
            NoteKind::Dropped {
                keyword: "icons".into(),
            },
            at.index(index),
            "SkyDeck has one avatar; this icon was left out",
        );
    }
    let Some(icon) = icons.first() else {
        return;
    };
    let icon_at = at.index(0);
    let (kind, avatar) = match icon.src.strip_prefix("data:") {
        Some(data) => match data.split_once(";base64,") {
            Some((mime, payload)) => {
                let reads_as = image_type(payload).unwrap_or("application/octet-stream");
                if !mime.eq_ignore_ascii_case(reads_as) {
                    notes.push(
                        NoteKind::Rewritten {
                            keyword: "src".into(),
                        },
                        icon_at.key("src"),
                        format!("SkyDeck keeps only the base64 image; its type {mime:?} reads back as {reads_as:?}"),
                    );
                }
                ("base64", payload.to_string())
            }
            None => {
                notes.push(
                    NoteKind::Dropped {
                        keyword: "icons".into(),
                    },
                    icon_at,
                    "SkyDeck avatars are URLs or base64 images; this data: URI is not base64, left out",
                );
                return;
            }
        },
        None => ("url", icon.src.clone()),
    };
    meta.insert("avatar_type".into(), Value::String(kind.into()));
    meta.insert("avatar".into(), Value::String(avatar));
    let Value::Object(fields) = serde_json::to_value(icon).expect("an Icon always serializes") else {
        return;
    };
    for key in fields.keys().filter(|key| *key != "src") {
        notes.push(
            NoteKind::Dropped { keyword: key.into() },
            icon_at.key(key),
            format!("SkyDeck avatars have no {key:?}; left out"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::read::read;
    use super::super::write::write;
    use super::*;
    use crate::json::Entry;
    use crate::options::{ReadOptions, WriteOptions};
    use crate::tool::Tool;
    use serde_json::json;

    fn read_doc(doc: &Value) -> (Result<Tool>, Vec<String>) {
        let mut notes = Notes::new();
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes);
        (tool, notes.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn avatars_become_icons_and_back() {
        let png = "iVBORw0KGgoAAAANSUhEUg";
        let doc = json!({"model_prompt": "x", "metadata": {"prompt_name": "p", "avatar_type": "base64", "avatar": png}});
        let (tool, notes) = read_doc(&doc);
        let tool = tool.unwrap();
        assert_eq!(
            tool.icons,
            Some(vec![Icon::new(format!("data:image/png;base64,{png}"))])
        );
        assert_eq!(notes, Vec::<String>::new());
        let mut notes = Notes::new();
        assert_eq!(write(&tool, &WriteOptions::default(), &mut notes).unwrap(), doc);
        assert!(notes.is_empty());

        let mut meta = Map::new();
        let icons = vec![
            Icon::new(format!("data:image/jpeg;base64,{png}")),
            Icon::new("https://example.com/b.png"),
        ];
        write_avatar(&icons, &mut meta, &mut notes);
        assert_eq!(
            Value::Object(meta),
            json!({"avatar_type": "base64", "avatar": png})
        );
        let lines: Vec<String> = notes.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "loss: SkyDeck has one avatar; this icon was left out (at /icons/1)",
                "change: SkyDeck keeps only the base64 image; its type \"image/jpeg\" reads back as \"image/png\" (at /icons/0/src)",
            ]
        );

        let (tool, notes) =
            read_doc(&json!({"model_prompt": "x", "metadata": {"avatar": "https://example.com/a.png"}}));
        assert_eq!(
            tool.unwrap().icons,
            Some(vec![Icon::new("https://example.com/a.png")])
        );
        assert_eq!(
            notes[1],
            "info: no avatar_type; the avatar reads as url (at /metadata/avatar)"
        );
    }
}
