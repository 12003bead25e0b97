__aicore__ __attribute__((always_inline)) void runQProjIncore0(__gm__ int64_t* args)
{
    // Unpack arguments
    __gm__ half* x = reinterpret_cast<__gm__ half*>(args[0]);
    __gm__ half* w = reinterpret_cast<__gm__ half*>(args[1]);
    __gm__ float* y = reinterpret_cast<__gm__ float*>(args[2]);

    // Global tensor declarations
    using xShapeDim5 = Shape<1, 1, 1, 16, 256>;
    using xStrideDim5 = Stride<1, 1, 1, 256, 1>;
    using xGlobalType = GlobalTensor<half, xShapeDim5, xStrideDim5>;
    xGlobalType xGlobal(x);

    using wShapeDim5 = Shape<1, 1, 1, 256, 32>;
    using wStrideDim5 = Stride<1, 1, 1, 32, 1>;
    using wGlobalType = GlobalTensor<half, wShapeDim5, wStrideDim5>;
    wGlobalType wGlobal(w);

    using yShapeDim5 = Shape<1, 1, 1, 16, 32>;
    using yStrideDim5 = Stride<1, 1, 1, 32, 1>;
    using yGlobalType = GlobalTensor<float, yShapeDim5, yStrideDim5>;
    yGlobalType yGlobal(y);

    // Tile type definitions and allocations
    using acc_tileType = Tile<TileType::Acc, float, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    acc_tileType acc_tile(16, 32);
    TASSIGN(acc_tile, 0x0);

    using x_matType = Tile<TileType::Mat, half, 16, 128, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    x_matType x_mat(16, 128);
    TASSIGN(x_mat, 0x0);

    using x_leftType = Tile<TileType::Left, half, 16, 128, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512>;
    x_leftType x_left(16, 128);
    TASSIGN(x_left, 0x0);

    using w_matType = Tile<TileType::Mat, half, 128, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    w_matType w_mat(128, 32);
    TASSIGN(w_mat, 0x1000);

    using w_rightType = Tile<TileType::Right, half, 128, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    w_rightType w_right(128, 32);
    TASSIGN(w_right, 0x0);

    using acc_2_tileType = Tile<TileType::Acc, float, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    acc_2_tileType acc_2_tile(16, 32);
    TASSIGN(acc_2_tile, 0x800);

    using x_mat_1Type = Tile<TileType::Mat, half, 16, 128, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    x_mat_1Type x_mat_1(16, 128);
    TASSIGN(x_mat_1, 0x0);

    using x_left_1Type = Tile<TileType::Left, half, 16, 128, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512>;
    x_left_1Type x_left_1(16, 128);
    TASSIGN(x_left_1, 0x0);

    using w_mat_1Type = Tile<TileType::Mat, half, 128, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    w_mat_1Type w_mat_1(128, 32);
    TASSIGN(w_mat_1, 0x1000);

    using w_right_1Type = Tile<TileType::Right, half, 128, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    w_right_1Type w_right_1(128, 32);
    TASSIGN(w_right_1, 0x0);

    using acc_3_accType = Tile<TileType::Acc, float, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    acc_3_accType acc_3_acc(16, 32);
    TASSIGN(acc_3_acc, 0x0);

    // Function body
    auto acc_1 = acc_tile;
    for (int64_t kb = 0; kb < (256 / 128); kb += 1) {
        int64_t k0 = (kb * 128);
        using acc_4Type = Tile<TileType::Acc, float, 16, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
        acc_4Type acc_4(16, 32);
        TASSIGN(acc_4, 0x800);
        if (k0 == 0) {
            set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            GlobalTensor<half, Shape<1, 1, 1, 16, 128>, Stride<1, 1, 1, 256, 1>> xGlobalWindow(x + 0 * 256 + k0);
            TLOAD(x_mat, xGlobalWindow);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
            TMOV(x_left, x_mat);
            GlobalTensor<half, Shape<1, 1, 1, 128, 32>, Stride<1, 1, 1, 32, 1>> wGlobalWindow(w + k0 * 32 + 0);
            TLOAD(w_mat, wGlobalWindow);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            TMOV(w_right, w_mat);
            set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            TMATMUL(acc_2_tile, x_left, w_right);
            acc_4 = acc_2_tile;
        } else {
            set_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            wait_flag(PIPE_MTE1, PIPE_MTE2, EVENT_ID0);
            GlobalTensor<half, Shape<1, 1, 1, 16, 128>, Stride<1, 1, 1, 256, 1>> xGlobalWindow(x + 0 * 256 + k0);
            TLOAD(x_mat_1, xGlobalWindow);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            set_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_M, PIPE_MTE1, EVENT_ID0);
            TMOV(x_left_1, x_mat_1);
            GlobalTensor<half, Shape<1, 1, 1, 128, 32>, Stride<1, 1, 1, 32, 1>> wGlobalWindow(w + k0 * 32 + 0);
            TLOAD(w_mat_1, wGlobalWindow);
            set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
            TMOV(w_right_1, w_mat_1);
            set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
            acc_3_acc = acc_1;
            TMATMUL_ACC(acc_3_acc, acc_3_acc, x_left_1, w_right_1);
            acc_4 = acc_3_acc;
        }
        acc_1 = acc_4;
    }
    set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
    TSTORE(yGlobal, acc_1);
}
