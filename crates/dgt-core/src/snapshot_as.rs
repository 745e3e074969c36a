//! How the chess library's types are written into a core snapshot (`Core::snapshot`):
//! shakmaty implements serde only for its text forms (FEN, UCI, SAN), so squares, pieces,
//! boards, positions and moves get their own compact forms here, used through
//! `#[serde_as(as = …)]` on the state types' fields.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_with::{DeserializeAs, SerializeAs};
use shakmaty::fen::Fen;
use shakmaty::{
    Board, ByColor, CastlingMode, Chess, Color, EnPassantMode, Move, Piece, Position,
    PositionError, Role, Square,
};

/// A square as its index (a1 = 0 … h8 = 63).
pub(crate) struct SquareAs;

impl SerializeAs<Square> for SquareAs {
    fn serialize_as<S: Serializer>(sq: &Square, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(u8::from(*sq))
    }
}

impl<'de> DeserializeAs<'de, Square> for SquareAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let n = u8::deserialize(d)?;
        Square::try_from(n).map_err(|_| D::Error::custom(format!("no square {n}")))
    }
}

/// A colour as `'w'` or `'b'`.
pub(crate) struct ColorAs;

impl SerializeAs<Color> for ColorAs {
    fn serialize_as<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(c.char())
    }
}

impl<'de> DeserializeAs<'de, Color> for ColorAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        let ch = char::deserialize(d)?;
        Color::from_char(ch).ok_or_else(|| D::Error::custom(format!("no colour {ch:?}")))
    }
}

/// A piece as its FEN letter (`'P'` white, `'p'` black).
pub(crate) struct PieceAs;

impl SerializeAs<Piece> for PieceAs {
    fn serialize_as<S: Serializer>(p: &Piece, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(p.char())
    }
}

impl<'de> DeserializeAs<'de, Piece> for PieceAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<Piece, D::Error> {
        let ch = char::deserialize(d)?;
        Piece::from_char(ch).ok_or_else(|| D::Error::custom(format!("no piece {ch:?}")))
    }
}

/// A board (pieces only) as the placement field of a FEN.
pub(crate) struct BoardAs;

impl SerializeAs<Board> for BoardAs {
    fn serialize_as<S: Serializer>(b: &Board, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&b.board_fen())
    }
}

impl<'de> DeserializeAs<'de, Board> for BoardAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<Board, D::Error> {
        let text = String::deserialize(d)?;
        Board::from_ascii_board_fen(text.as_bytes())
            .map_err(|e| D::Error::custom(format!("board {text:?}: {e}")))
    }
}

/// Castling mode as `true` for Chess960 (castling rights named by rook squares).
pub(crate) struct CastlingModeAs;

impl SerializeAs<CastlingMode> for CastlingModeAs {
    fn serialize_as<S: Serializer>(m: &CastlingMode, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(m.is_chess960())
    }
}

impl<'de> DeserializeAs<'de, CastlingMode> for CastlingModeAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<CastlingMode, D::Error> {
        Ok(CastlingMode::from_chess960(bool::deserialize(d)?))
    }
}

/// A position as its full FEN (the en-passant square as stored, whether or not a capture is
/// possible) and its castling mode. Positions the core holds that no FEN setup accepts (a
/// pawn on a back rank in bughouse, kings both in check after an illegal move taken as it
/// stood) refuse to load: the snapshot is then not used and the journal is replayed.
pub(crate) struct ChessAs;

impl SerializeAs<Chess> for ChessAs {
    fn serialize_as<S: Serializer>(p: &Chess, s: S) -> Result<S::Ok, S::Error> {
        let fen = Fen::from_position(p, EnPassantMode::Always);
        (fen.to_string(), p.castles().mode().is_chess960()).serialize(s)
    }
}

impl<'de> DeserializeAs<'de, Chess> for ChessAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<Chess, D::Error> {
        let (text, chess960) = <(String, bool)>::deserialize(d)?;
        let fen: Fen = text
            .parse()
            .map_err(|e| D::Error::custom(format!("position {text:?}: {e}")))?;
        fen.into_position::<Chess>(CastlingMode::from_chess960(chess960))
            .or_else(PositionError::ignore_too_much_material)
            .or_else(PositionError::ignore_impossible_check)
            .map_err(|e| D::Error::custom(format!("position {text:?}: {e}")))
    }
}

/// The mirror of [`Move`] written into snapshots.
#[derive(Serialize, Deserialize)]
enum MoveForm {
    N(char, u8, Option<char>, u8, Option<char>),
    E(u8, u8),
    C(u8, u8),
    P(char, u8),
}

/// A move, every kind (drops included), exactly.
pub(crate) struct MoveAs;

impl SerializeAs<Move> for MoveAs {
    fn serialize_as<S: Serializer>(m: &Move, s: S) -> Result<S::Ok, S::Error> {
        let sq = |q: Square| u8::from(q);
        let form = match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => MoveForm::N(
                role.char(),
                sq(from),
                capture.map(Role::char),
                sq(to),
                promotion.map(Role::char),
            ),
            Move::EnPassant { from, to } => MoveForm::E(sq(from), sq(to)),
            Move::Castle { king, rook } => MoveForm::C(sq(king), sq(rook)),
            Move::Put { role, to } => MoveForm::P(role.char(), sq(to)),
        };
        form.serialize(s)
    }
}

impl<'de> DeserializeAs<'de, Move> for MoveAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        let sq =
            |n: u8| Square::try_from(n).map_err(|_| D::Error::custom(format!("no square {n}")));
        let role =
            |c: char| Role::from_char(c).ok_or_else(|| D::Error::custom(format!("no role {c:?}")));
        let opt_role = |c: Option<char>| c.map(role).transpose();
        Ok(match MoveForm::deserialize(d)? {
            MoveForm::N(r, from, capture, to, promotion) => Move::Normal {
                role: role(r)?,
                from: sq(from)?,
                capture: opt_role(capture)?,
                to: sq(to)?,
                promotion: opt_role(promotion)?,
            },
            MoveForm::E(from, to) => Move::EnPassant {
                from: sq(from)?,
                to: sq(to)?,
            },
            MoveForm::C(king, rook) => Move::Castle {
                king: sq(king)?,
                rook: sq(rook)?,
            },
            MoveForm::P(r, to) => Move::Put {
                role: role(r)?,
                to: sq(to)?,
            },
        })
    }
}

/// A pair by colour as `(white, black)`, each written as `T` says.
pub(crate) struct ByColorAs<T>(std::marker::PhantomData<T>);

impl<T, U: SerializeAs<T>> SerializeAs<ByColor<T>> for ByColorAs<U> {
    fn serialize_as<S: Serializer>(b: &ByColor<T>, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&serde_with::ser::SerializeAsWrap::<T, U>::new(&b.white))?;
        t.serialize_element(&serde_with::ser::SerializeAsWrap::<T, U>::new(&b.black))?;
        t.end()
    }
}

impl<'de, T, U: DeserializeAs<'de, T>> DeserializeAs<'de, ByColor<T>> for ByColorAs<U> {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<ByColor<T>, D::Error> {
        let (white, black): (
            serde_with::de::DeserializeAsWrap<T, U>,
            serde_with::de::DeserializeAsWrap<T, U>,
        ) = Deserialize::deserialize(d)?;
        Ok(ByColor {
            white: white.into_inner(),
            black: black.into_inner(),
        })
    }
}

/// Counts by role as `[pawn, knight, bishop, rook, queen, king]`.
pub(crate) struct ByRoleAs;

impl SerializeAs<shakmaty::ByRole<u8>> for ByRoleAs {
    fn serialize_as<S: Serializer>(b: &shakmaty::ByRole<u8>, s: S) -> Result<S::Ok, S::Error> {
        [b.pawn, b.knight, b.bishop, b.rook, b.queen, b.king].serialize(s)
    }
}

impl<'de> DeserializeAs<'de, shakmaty::ByRole<u8>> for ByRoleAs {
    fn deserialize_as<D: Deserializer<'de>>(d: D) -> Result<shakmaty::ByRole<u8>, D::Error> {
        let [pawn, knight, bishop, rook, queen, king] = <[u8; 6]>::deserialize(d)?;
        Ok(shakmaty::ByRole {
            pawn,
            knight,
            bishop,
            rook,
            queen,
            king,
        })
    }
}
