//! Emacs Lisp's number read syntax, shared by the reader (a token is a
//! number or a symbol) and the printer (a symbol that would read as a
//! number is written escaped).

use super::Kind;

/// An integer or float in Emacs's read syntax, or `None` for a symbol.
pub(super) fn parse_number(token: &str) -> Option<Kind> {
    let body = token.strip_prefix(['+', '-']).unwrap_or(token);
    let negative = token.starts_with('-');
    if body.is_empty() {
        return None;
    }
    let int_part = body.strip_suffix('.').unwrap_or(body);
    if !int_part.is_empty() && int_part.bytes().all(|b| b.is_ascii_digit()) {
        let text = format!("{}{int_part}", if negative { "-" } else { "" });
        return Some(match text.parse::<i64>() {
            Ok(value) => Kind::Integer(value),
            Err(_) => Kind::BigInteger(text.trim_start_matches('+').to_string()),
        });
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !fraction.is_none_or(digits) {
        return None;
    }
    let has_fraction = fraction.is_some_and(|f| !f.is_empty());
    match exponent {
        None if has_fraction => {}
        None => return None,
        Some("+INF") | Some("INF") if whole.chars().chain(fraction.unwrap_or("").chars()).any(|_| true) => {
            return Some(Kind::Float(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }));
        }
        Some("+NaN") | Some("NaN") if !whole.is_empty() || has_fraction => {
            return Some(Kind::Float(f64::NAN))
        }
        Some(exp) => {
            let exp_digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if exp_digits.is_empty() || !digits(exp_digits) || (whole.is_empty() && !has_fraction) {
                return None;
            }
        }
    }
    if whole.is_empty() && !has_fraction {
        return None;
    }
    token.parse::<f64>().ok().map(Kind::Float)
}
